import { spawn } from 'node:child_process';
import { reaped } from '../kit/child-reaper.js';
import { stallsSince, unwatch, watch } from '../kit/harness-load.js';

/**
 * The harness's own machine, measured while the interop clients run, so that what a starved machine causes is
 * never taken for the service's answer (issue 33): how long a runtime takes to start right now (the clients'
 * deadlines grow with it), and when the harness's own event loop stalled (the time a reply waited unread).
 */

/** Milliseconds since the epoch on the monotonic clock: comparable with an exchange's `startedAt`. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/** A start-up that takes longer than this is not measured further: the allowance is at its cap anyway. */
const STARTUP_PROBE_LIMIT_MS = 30_000;

/**
 * How long `node -e 0` takes to start and exit on this machine right now: the runtime of the TypeScript
 * clients and of the repository's stdio proxy, and a measure of how starved the machine is for the others.
 */
export function measureStartup(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = reaped(spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }));
    const timer = setTimeout(() => child.kill('SIGKILL'), STARTUP_PROBE_LIMIT_MS);
    const done = () => {
      clearTimeout(timer);
      resolve(Math.round(performance.now() - started));
    };
    child.on('error', done);
    child.on('close', done);
  });
}

/**
 * The start-ups one connect may wait for: a client runtime and its SDK's modules, the stdio proxy it spawns
 * (twice for an auto-negotiating TypeScript client: a probe child first), with the matrix's other clients
 * starting on the same cores at the same time. `node -e 0` is the lightest of them, hence the multiple.
 */
const STARTUPS_PER_CONNECT = 20;
/** Bounded: a client that hangs is still caught, at most this much later. */
export const MAX_STARTUP_ALLOWANCE_MS = 30_000;

/** What a client's deadlines get on top of the run's per-request deadline, for a runtime start-up of `startupMs`. */
export function startupAllowance(startupMs: number): number {
  return Math.min(MAX_STARTUP_ALLOWANCE_MS, Math.round(STARTUPS_PER_CONNECT * Math.max(0, startupMs)));
}

/** An interval (epoch ms) in which the harness's event loop ran nothing of what was waiting. */
export interface Stall {
  from: number;
  to: number;
}

/** Milliseconds of `stalls` inside [from, to]. */
export function stalledWithin(stalls: readonly Stall[], from: number, to: number): number {
  let total = 0;
  for (const s of stalls) total += Math.max(0, Math.min(to, s.to) - Math.max(from, s.from));
  return total;
}

export interface StallWatch {
  /** The stalls seen since the process first watched, the one going on now included (it shows once it ends). */
  stalls(): Stall[];
  stop(): void;
}

/**
 * Watches the harness's event loop while an interop client runs (the process's one stall watch,
 * src/kit/harness-load.ts), its stalls in epoch time to set beside the exchanges' `startedAt`.
 */
export function watchStalls(): StallWatch {
  watch();
  let stopped = false;
  return {
    stalls() {
      return stallsSince(0).map((x) => ({ from: performance.timeOrigin + x.start, to: performance.timeOrigin + x.end }));
    },
    stop() {
      if (stopped) return;
      stopped = true;
      unwatch();
    },
  };
}
