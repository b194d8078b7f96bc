import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * Every process under `roots` (Linux: each process's parent read from /proc; elsewhere none). A client
 * program's own children (the TypeScript clients' stdio proxy, Python's subprocesses) outlive a SIGKILL'd
 * parent until their stdin's end reaches them, which on a busy machine takes longer than the command's exit.
 */
export function descendantsOf(roots: readonly number[]): number[] {
  const childrenOf = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces or parentheses: the parent follows the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = childrenOf.get(ppid) ?? [];
      list.push(Number(entry));
      childrenOf.set(ppid, list);
    } catch {
      // Ended while listed.
    }
  }
  const out: number[] = [];
  for (const todo = [...roots]; todo.length > 0;) {
    for (const pid of childrenOf.get(todo.pop()!) ?? []) {
      out.push(pid);
      todo.push(pid);
    }
  }
  return out;
}

/** Last resort on the way out: kill every child this process started that is still running, and theirs. */
export function killAllChildren(): void {
  const roots = [...live].map((child) => child.pid).filter((pid): pid is number => pid !== undefined);
  // Listed before their parents die: an orphan's parent is no longer ours to find.
  const below = roots.length > 0 ? descendantsOf(roots) : [];
  for (const child of live) child.kill('SIGKILL');
  for (const pid of below) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  live.clear();
}
