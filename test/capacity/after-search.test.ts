/**
 * What comes after the search, on a simulated service with a known past: goodput past the sustained rate
 * (holds or collapses), how long latency takes to come back after the overload, and drift in a soak.
 */
import { describe, expect, it } from 'vitest';
import { overloadAndRecovery, soak } from '../../load/capacity/after-search.js';
import { LatencyHistogram } from '../../load/capacity/latency-histogram.js';
import type { Decision, StepMeasurement, StepPlan } from '../../load/capacity/open-model-driver.js';
import type { StepRunner } from '../../load/capacity/search.js';

/** Each step's replies: goodput and the latency of each 250 ms bin, from the plan. */
type Behaviour = (plan: StepPlan, call: number) => { good: number; binsMs: number[]; p99?: number; rssMiB?: number };

class Scripted implements StepRunner {
  sentTotal = 0;
  private calls = 0;
  constructor(private readonly behaviour: Behaviour) {}
  async single() {
    return { ms: 5, ok: true };
  }
  async runStep(plan: StepPlan, decide: (m: StepMeasurement, final: boolean) => Decision): Promise<StepMeasurement> {
    const b = this.behaviour(plan, ++this.calls);
    const n = Math.round((plan.rate * plan.windowMs) / 1000);
    this.sentTotal += n;
    const latency = new LatencyHistogram();
    for (let i = 0; i < n; i++) latency.record(i < n * 0.98 ? 5 : b.p99 ?? 5);
    const bins = b.binsMs.map((ms, i) => {
      const h = new LatencyHistogram();
      for (let k = 0; k < 10; k++) h.record(ms);
      return { atMs: i * 250, latency: h };
    });
    const goodInWindows = Math.round((b.good * plan.windowMs) / 1000);
    const m: StepMeasurement = {
      offered: plan.rate, warmupMs: plan.warmupMs, windowMs: plan.windowMs, planned: n, sent: n, settled: n, ok: goodInWindows, rateLimited: 0, errors: n - Math.min(n, goodInWindows), errorsByKind: {},
      pending: 0, completedInWindows: n, goodInWindows, latency, service: new LatencyHistogram(), ttfp: new LatencyHistogram(), ttfr: new LatencyHistogram(), sendLag: new LatencyHistogram(),
      inFlight: { start: 0, end: 0, max: 0 }, generator: { cpuCores: 0, eventLoopUtilization: 0, eventLoopDelayP99Ms: 0, poolQueuedMax: 0 }, bins,
      ...(b.rssMiB !== undefined && { serverRssMiB: b.rssMiB }),
    };
    decide(m, true);
    return m;
  }
}

describe('after the search', () => {
  it('goodput that holds past the sustained rate, and the time latency takes to come back', async () => {
    // The overload leaves a queue that drains in 1.5 s at half the rate: bins 0-5 slow, then the baseline.
    const runner = new Scripted((plan, call) => (call === 1 ? { good: 980, binsMs: [] } : { good: plan.rate, binsMs: [400, 300, 200, 100, 50, 20, 6, 5, 5, 5, 6, 5] }));
    const o = await overloadAndRecovery(runner, 1000, 5, 'constant', 1, 2000);
    expect(o.over.offered).toBe(1500);
    expect(o.over.holds).toBe(true);
    expect(o.over.goodputShareOfSustained).toBeCloseTo(0.98, 2);
    expect(o.recovery.offered).toBe(500);
    expect(o.recovery.recoveredAfterS).toBe(1.5);
    expect(o.recovery.summary).toMatch(/returned to its baseline .* 1.5 s after the overload/);
  });

  it('goodput that collapses past it, and latency that never comes back within the window', async () => {
    const runner = new Scripted((plan, call) => (call === 1 ? { good: 300, binsMs: [] } : { good: plan.rate, binsMs: Array.from({ length: 40 }, () => 500) }));
    const o = await overloadAndRecovery(runner, 1000, 5, 'constant', 1, 2000);
    expect(o.over.holds).toBe(false);
    expect(o.over.summary).toMatch(/collapsed to 300 req\/s \(30 % of the sustained rate\)/);
    expect(o.recovery.recoveredAfterS).toBeNull();
    expect(o.recovery.summary).toMatch(/had not returned/);
  });

  it('a soak flags p99 that drifts up and memory that grows, and not a steady service', async () => {
    const drifting = new Scripted((_, call) => ({ good: 100, binsMs: [], p99: 10 + call * 10, rssMiB: 100 + call * 10 }));
    const d = await soak(drifting, 100, 0.8, 60, 'constant', 1);
    expect(d.offered).toBe(80);
    // Windows of at least 5 s: twelve in a minute.
    expect(d.windows).toHaveLength(12);
    expect(d.drift.flagged).toBe(true);
    expect(d.drift.p99Ratio).toBeGreaterThan(1.5);
    expect(d.drift.rssGrowthPct).toBeGreaterThan(20);
    expect(d.drift.summary).toMatch(/DRIFT$/);
    const steady = new Scripted(() => ({ good: 100, binsMs: [], p99: 20, rssMiB: 100 }));
    const s = await soak(steady, 100, 0.8, 60, 'constant', 1);
    expect(s.drift.flagged).toBe(false);
    expect(s.drift.summary).toMatch(/no drift$/);
  });
});
