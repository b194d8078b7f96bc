import type { ChildProcess } from 'node:child_process';

/**
 * The child processes a command started (SDK client programs, server children) and that still run. A
 * SIGINT or SIGTERM ends them with the command: a node process that dies of a signal takes no child with it,
 * and a client left behind would keep calling the target. Where nothing else handles the signal, the command
 * then exits as the signal asks (130, 143); where something does (a target closing its container, the test
 * runner), that handler decides, and only the children are ended here.
 */
const live = new Set<ChildProcess>();

function onSignal(signal: NodeJS.Signals): void {
  killAllChildren();
  if (process.listeners(signal).some((l) => l !== onSignal)) return;
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

/** Listeners that act only where no handler of the command's own does: the reaper's, main()'s last word. */
const lastResorts = new Set<unknown>([onSignal]);

/** Marks `listener` as a last resort: a handler asking whether the signal is owned does not count it. */
export function lastResort<F>(listener: F): F {
  lastResorts.add(listener);
  return listener;
}

/**
 * signal-exit's listeners (loaded with testcontainers) only re-raise a signal when nothing else listens:
 * they do not end the run, so they own no signal either.
 */
const passive = (listener: unknown): boolean => /processOk|emitter\.count|signal-exit/.test(String(listener));

/**
 * Whether a handler of the command's own besides `self` handles `signal` (a container target closing, the
 * load command stopping, the test runner): the one rule by which every other handler defers to it.
 */
export function signalOwned(signal: NodeJS.Signals, self: unknown): boolean {
  return process.listeners(signal).some((l) => l !== self && !lastResorts.has(l) && !passive(l));
}

/** Tracks `child` until it exits; the first one tracked installs the signal handler. */
export function reaped<C extends ChildProcess>(child: C): C {
  if (!process.listeners('SIGTERM').includes(onSignal)) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Last resort on the way out: kill every child this process started that is still running. */
export function killAllChildren(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}
