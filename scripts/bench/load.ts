/** One closed-loop autocannon run, with latency kept at microsecond resolution. */
import autocannon from 'autocannon';
import { createHistogram } from 'node:perf_hooks';

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  /** Seconds. */
  duration: number;
}

export interface LoadResult {
  /** Completed responses / measured duration. */
  reqPerSec: number;
  /** autocannon's own figure: the mean of its per-second samples (a cross-check). */
  reqPerSecAutocannon: number;
  requests: number;
  durationS: number;
  /**
   * Percentiles from each response's own hrtime duration (the value autocannon passes to its
   * 'response' event); autocannon's histogram keeps whole milliseconds only.
   */
  latencyMs: { p50: number; p99: number; mean: number; max: number };
  latencyMsAutocannon: { p50: number; p99: number };
  statusCodes: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Non-2xx or errors (timeouts are errors). */
  problems: string[];
  /** Process CPU (user + system) of this process, the load generator, during the run, in µs. */
  generatorCpuMicros: number;
  startedAt: string;
}

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  // 1 µs .. 60 s.
  const latency = createHistogram({ lowest: 1, highest: 60_000_000, figures: 3 });
  const cpu0 = process.cpuUsage();
  const startedAt = new Date().toISOString();
  return new Promise<LoadResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: 'POST',
        headers: spec.headers,
        body: spec.body,
        connections: spec.connections,
        duration: spec.duration,
        pipelining: 1,
        timeout: 10,
      },
      (err: unknown, result) => {
        if (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        const cpu = process.cpuUsage(cpu0);
        const statusCodes: Record<string, number> = {};
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
        const problems: string[] = [];
        if (result.non2xx > 0) {
          problems.push(`${result.non2xx} non-2xx responses (${Object.entries(statusCodes).filter(([c]) => !c.startsWith('2')).map(([c, n]) => `${c}: ${n}`).join(', ')})`);
        }
        if (result.errors > 0) problems.push(`${result.errors} errors (${result.timeouts} of them timeouts)`);
        if (result.requests.total === 0) problems.push('no response completed');
        const pct = (p: number) => (latency.count > 0 ? latency.percentile(p) / 1000 : 0);
        resolve({
          reqPerSec: result.duration > 0 ? result.requests.total / result.duration : 0,
          reqPerSecAutocannon: result.requests.average,
          requests: result.requests.total,
          durationS: result.duration,
          latencyMs: { p50: pct(50), p99: pct(99), mean: latency.count > 0 ? latency.mean / 1000 : 0, max: latency.count > 0 ? latency.max / 1000 : 0 },
          latencyMsAutocannon: { p50: result.latency.p50, p99: result.latency.p99 },
          statusCodes,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          problems,
          generatorCpuMicros: cpu.user + cpu.system,
          startedAt,
        });
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      // autocannon's histogram holds 2xx latencies only; so does this one.
      if (statusCode >= 200 && statusCode < 300) latency.record(Math.max(1, Math.round(responseTime * 1000)));
    });
  });
}
