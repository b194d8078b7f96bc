/**
 * A step's verdict, in the order that keeps a number honest: 429s, the generator, the SLO, the queue. Built
 * from measurements of a known shape (helpers/simulated-runner's `measurement`).
 */
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../load/capacity/latency-histogram.js';
import type { StepPlan } from '../../load/capacity/open-model-driver.js';
import { parseSlo, thresholdsOf } from '../../load/capacity/slo.js';
import { defaultGeneratorBounds, judgeStep } from '../../load/capacity/step-judge.js';
import { measurement } from './helpers/simulated-runner.js';

const slo = parseSlo('p99<=50ms,errors<=1%');
const bounds = defaultGeneratorBounds(slo);
const plan = (rate: number): StepPlan => ({
  rate, arrivals: 'constant', seed: 1, warmupMs: 0, windowMs: 1000, maxWindows: 1,
  thresholds: { latency: thresholdsOf(slo, 'latency'), ttfp: [], ttfr: [], sendLag: [bounds.lagBoundMs] },
});

/** `n` sends of which `late` left 100 ms late, the rest at once. */
function withLag(m: ReturnType<typeof measurement>, late: number): ReturnType<typeof measurement> {
  const lag = new LatencyHistogram([bounds.lagBoundMs]);
  for (let i = 0; i < m.sent; i++) lag.record(i < late ? 100 : 0.5);
  return { ...m, sendLag: lag };
}

describe('judging a step', () => {
  it('one hiccup of the generator (two late sends in 400) does not make a step invalid; a tenth of them late does', () => {
    const m = measurement(plan(400), 400, 1, 5, 0, 0, 0);
    expect(judgeStep(withLag(m, 2), slo, bounds, true, false).verdict).toBe('pass');
    const late = judgeStep(withLag(m, 40), slo, bounds, true, false);
    expect(late.verdict).toBe('invalid');
    expect(late.reason).toMatch(/^the generator sent late: send lag p99 100 ms, 40 of 400 sends later than 13 ms/);
  });

  it('a service that breaks the SLO by its own service time, beyond the generator\'s worst lag, fails however late the generator was', () => {
    const m = withLag(measurement(plan(400), 400, 1, 300, 0, 0, 0), 40);
    const j = judgeStep(m, slo, bounds, true, false);
    expect(j.verdict).toBe('fail');
    expect(j.reason).toMatch(/^p99<=50ms broke by the service's own time: .*; the generator was also late/);
  });

  it('a service time beyond the threshold by less than the worst lag may be the generator reading late: invalid', () => {
    const m = withLag(measurement(plan(400), 400, 1, 120, 0, 0, 0), 40);
    expect(judgeStep(m, slo, bounds, true, false).verdict).toBe('invalid');
  });

  it('a break that only the lag explains is the generator\'s: invalid', () => {
    // 5 ms of service, 100 ms of lag on a tenth of the sends: latency from the planned send breaks, service time does not.
    const m = withLag(measurement(plan(400), 400, 1, 5, 0, 100, 0.1), 40);
    m.service = new LatencyHistogram();
    for (let i = 0; i < 400; i++) m.service.record(5);
    expect(judgeStep(m, slo, bounds, true, false).verdict).toBe('invalid');
  });

  it('429s first: a rate limit, whatever else the step shows', () => {
    const m = measurement(plan(400), 400, 1, 300, 40, 0, 0);
    const j = judgeStep(withLag(m, 40), slo, bounds, true, false);
    expect(j.verdict).toBe('rate-limited');
    expect(j.reason).toMatch(/^40 of 400 requests drew 429 \(10\.0 %\): a rate limit, not a capacity$/);
  });
});
