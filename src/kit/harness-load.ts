import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * How busy the harness's own machine was: its event loop's delay, the CPU the harness used, and the stalls
 * (times its event loop was held) as intervals, so that a deadline that passed while the harness itself was
 * held is not taken for the service's slowness. What the harness's machine caused is never the service's fault.
 *
 * The stall watch is the process's (there is one event loop): a timer that should fire every TICK_MS, and a
 * stall is every time it fired STALL_MS or more late, kept as [start, end] in performance.now() time.
 */

const TICK_MS = 20;
/** A lateness this long is a stall: a loaded machine's scheduler slices and a GC pause stay under it. */
export const STALL_MS = 100;
/** Stalls kept: enough for the longest run; older ones fall off. */
const KEPT = 4_096;

const stalls: { start: number; end: number }[] = [];
let watching = 0;
let timer: NodeJS.Timeout | undefined;
/** When the watch's timer last ran (performance.now() time). */
let lastTick = 0;

/** Starts the watch (one timer for the process, however many watch); `unwatch` once per call. */
export function watch(): void {
  watching++;
  if (timer) return;
  lastTick = performance.now();
  timer = setInterval(() => {
    const now = performance.now();
    if (now - lastTick - TICK_MS >= STALL_MS) {
      stalls.push({ start: lastTick + TICK_MS, end: now });
      if (stalls.length > KEPT) stalls.splice(0, stalls.length - KEPT);
    }
    lastTick = now;
  }, TICK_MS);
  timer.unref();
}

export function unwatch(): void {
  watching--;
  if (watching === 0 && timer) {
    clearInterval(timer);
    timer = undefined;
  }
}

/** The stalls since `from` (performance.now() time), the one going on now included. */
export function stallsSince(from: number): { start: number; end: number }[] {
  const now = performance.now();
  const ongoing = timer && now - lastTick - TICK_MS >= STALL_MS ? [{ start: lastTick + TICK_MS, end: now }] : [];
  let first = stalls.length;
  while (first > 0 && stalls[first - 1]!.end > from) first--;
  return [...stalls.slice(first), ...ongoing];
}

/** How long the harness's event loop was held (stalls of STALL_MS or more) between `from` and `to` (performance.now() times). */
export function stalledMs(from: number, to: number = performance.now()): number {
  return stallsSince(from).reduce((held, s) => held + Math.max(0, Math.min(s.end, to) - Math.max(s.start, from)), 0);
}

/** What a run reports of its own machine (results.json `harness`). */
export interface HarnessLoad {
  /** The harness's event-loop delay over the run, ms: p50, p99, max. */
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  /** Times the event loop was held STALL_MS or more, and for how long in all. */
  stalls: { count: number; totalMs: number; longestMs: number };
  /** CPU seconds the harness's process used (every thread of it: the embedded server's too). */
  cpuSeconds: number;
  /** The machine's cores and its load average over the last minute at the run's end (runnable processes). */
  cores: number;
  loadAverage1m: number;
  /** A sentence when the machine was busy enough that timings may be the harness's, not the service's. */
  busy?: string;
}

/** Starts measuring for one run; `stop()` says what the run's machine was like. */
export function measureHarnessLoad(): { stop(): HarnessLoad } {
  watch();
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  return {
    stop() {
      histogram.disable();
      unwatch();
      const used = process.cpuUsage(cpu);
      const ms = (ns: number) => Math.round(ns / 1e5) / 10;
      const own = stalls.filter((s) => s.start >= started);
      const load: HarnessLoad = {
        eventLoopDelayMs: { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) },
        stalls: { count: own.length, totalMs: Math.round(own.reduce((n, s) => n + s.end - s.start, 0)), longestMs: Math.round(Math.max(0, ...own.map((s) => s.end - s.start))) },
        cpuSeconds: Math.round((used.user + used.system) / 1e4) / 100,
        cores: cpus().length,
        loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
      };
      const wallS = (performance.now() - started) / 1000;
      if (load.stalls.longestMs >= 1_000 || load.loadAverage1m > 2 * load.cores) {
        load.busy = `the harness's machine was busy: its event loop was held ${load.stalls.count} time(s) for ${(load.stalls.totalMs / 1000).toFixed(1)} s in all (longest ${load.stalls.longestMs} ms) in ${wallS.toFixed(1)} s, load average ${load.loadAverage1m} on ${load.cores} core(s); a deadline that passed while the harness was held is judged not testable, never the service's failure`;
      }
      return load;
    },
  };
}
