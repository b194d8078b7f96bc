import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance, type EventLoopUtilization } from 'node:perf_hooks';

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
  const meter = meterOwnLoad();
  const started = performance.now();
  return {
    stop() {
      const own = meter.stop();
      unwatch();
      const held = stalls.filter((s) => s.start >= started);
      const load: HarnessLoad = {
        eventLoopDelayMs: { p50: own.delayP50Ms, p99: own.delayP99Ms, max: own.delayMaxMs },
        stalls: { count: held.length, totalMs: Math.round(held.reduce((n, s) => n + s.end - s.start, 0)), longestMs: Math.round(Math.max(0, ...held.map((s) => s.end - s.start))) },
        cpuSeconds: Math.round(own.cpuMs / 10) / 100,
        cores: cpus().length,
        loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
      };
      if (load.stalls.longestMs >= 1_000 || load.loadAverage1m > 2 * load.cores) {
        load.busy = `the harness's machine was busy: its event loop was held ${load.stalls.count} time(s) for ${(load.stalls.totalMs / 1000).toFixed(1)} s in all (longest ${load.stalls.longestMs} ms) in ${(own.elapsedMs / 1000).toFixed(1)} s, load average ${load.loadAverage1m} on ${load.cores} core(s); a deadline that passed while the harness was held is judged not testable, never the service's failure`;
      }
      return load;
    },
  };
}

/**
 * How hard this process worked while it generated load, so that a rate it could not reach is put down to its
 * cause: the harness itself (its event loop busy all the time, late timers, CPU spent) or the other side.
 */
export interface OwnLoad {
  elapsedMs: number;
  /** Share of the time the main thread's event loop was busy (1: it never waited for I/O). */
  busy: number;
  /** How late the event loop ran a timer: median, 99th percentile and worst, in ms. */
  delayP50Ms: number;
  delayP99Ms: number;
  delayMaxMs: number;
  /** CPU time of the whole process (every thread: an in-process server's too), user + system, in ms. */
  cpuMs: number;
}

/** Above this share of busy time the event loop, not the peer, set the pace. */
export const SATURATED = 0.9;

/** Starts measuring; `read()` gives the load since the start (it may be read more than once), `stop()` ends the delay monitor. */
export function meterOwnLoad(): { read(): OwnLoad; stop(): OwnLoad } {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const elu: EventLoopUtilization = performance.eventLoopUtilization();
  const ms = (ns: number) => Math.round(ns / 1e5) / 10;
  const read = (): OwnLoad => {
    const used = process.cpuUsage(cpu);
    const enough = delay.count > 0;
    return {
      elapsedMs: performance.now() - started,
      busy: performance.eventLoopUtilization(elu).utilization,
      delayP50Ms: enough ? ms(delay.percentile(50)) : 0,
      delayP99Ms: enough ? ms(delay.percentile(99)) : 0,
      delayMaxMs: enough ? ms(delay.max) : 0,
      cpuMs: (used.user + used.system) / 1000,
    };
  };
  return {
    read,
    stop() {
      const load = read();
      delay.disable();
      return load;
    },
  };
}

/** `event loop busy 97% (delay p50 12 ms, p99 48 ms, max 60 ms), CPU 1.9 s of 2.0 s (0.95 cores)`. */
export function describeOwnLoad(l: OwnLoad): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return `event loop busy ${Math.round(l.busy * 100)}% (timer delay p50 ${l.delayP50Ms} ms, p99 ${l.delayP99Ms} ms, max ${l.delayMaxMs} ms), process CPU ${s(l.cpuMs)} in ${s(l.elapsedMs)} (${(l.cpuMs / Math.max(1, l.elapsedMs)).toFixed(2)} cores)`;
}
