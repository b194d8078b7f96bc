import { monitorEventLoopDelay, performance, type EventLoopUtilization } from 'node:perf_hooks';

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
