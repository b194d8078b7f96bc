/**
 * A service simulated without network or clock, whose answer is known exactly: what each step would measure,
 * from its planned rate. The search's logic and the reports are proven on it; the real driver on real
 * endpoints of known capacity (known-capacity.test.ts).
 */
import { LatencyHistogram } from '../../../load/capacity/latency-histogram.js';
import type { Decision, StepMeasurement, StepPlan } from '../../../load/capacity/open-model-driver.js';
import type { StepRunner } from '../../../load/capacity/search.js';

export interface Service {
  /** Highest rate whose latency stays at 5 ms; above it every request takes 200 ms times the overload (a queue's wait grows with it). */
  capacity: number;
  /** 429s at or above this rate. */
  limit?: number;
  /** The generator lags 100 ms at or above this rate. */
  generator?: number;
  /** This share of every step's requests takes 200 ms whatever the rate (a tail right at an SLO's edge). */
  tail?: number;
  /** Whether the nth step (from 1) at this rate is disturbed: it breaks the SLO whatever the capacity. */
  disturbed?: (rate: number, nth: number) => boolean;
}

export class SimulatedRunner implements StepRunner {
  sentTotal = 0;
  rates: number[] = [];
  constructor(private readonly s: Service) {}
  async close(): Promise<void> {}
  async single() {
    this.sentTotal++;
    return { ms: 5, ok: true };
  }
  async runStep(plan: StepPlan, decide: (m: StepMeasurement, final: boolean) => Decision): Promise<StepMeasurement> {
    this.rates.push(plan.rate);
    for (let windows = 1; ; windows++) {
      const n = Math.round((plan.rate * plan.windowMs * windows) / 1000);
      this.sentTotal += n;
      const nth = this.rates.filter((r) => r === plan.rate).length;
      const over = plan.rate > this.s.capacity || (windows === 1 && (this.s.disturbed?.(plan.rate, nth) ?? false));
      const m = measurement(plan, n, windows, over ? 200 * Math.max(1, plan.rate / this.s.capacity) : 5, plan.rate >= (this.s.limit ?? Infinity) ? Math.ceil(n / 10) : 0, plan.rate >= (this.s.generator ?? Infinity) ? 100 : 0.5, this.s.tail ?? 0);
      const d = decide(m, true);
      if (d !== 'extend') return m;
    }
  }
}

export function measurement(plan: StepPlan, n: number, windows: number, latencyMs: number, limited: number, lagMs: number, tail: number): StepMeasurement {
  const latency = new LatencyHistogram(plan.thresholds.latency);
  const service = new LatencyHistogram();
  const sendLag = new LatencyHistogram();
  const ttfp = new LatencyHistogram(plan.thresholds.ttfp);
  const ttfr = new LatencyHistogram(plan.thresholds.ttfr);
  for (let i = 0; i < n - limited; i++) {
    const ms = (i < (n - limited) * tail ? 200 : latencyMs) + lagMs;
    latency.record(ms);
    ttfp.record(1 + lagMs);
    ttfr.record(ms);
    service.record(latencyMs);
  }
  for (let i = 0; i < n; i++) sendLag.record(lagMs);
  return {
    offered: plan.rate, warmupMs: plan.warmupMs, windowMs: plan.windowMs * windows, planned: n, sent: n, settled: n, ok: n - limited, rateLimited: limited, errors: 0, errorsByKind: {},
    pending: 0, completedInWindows: n, goodInWindows: n - limited, latency, service,
    ttfp, ttfr, sendLag,
    inFlight: { start: 0, end: 0, max: 1 }, generator: { cpuCores: 0.1, eventLoopUtilization: 0.1, eventLoopDelayP99Ms: 1, poolQueuedMax: 0 }, bins: [],
  };
}

