import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../service/reference-server/rate-limiter.js';
import { expectGate, limiterShape, median, sustainedFromSteps, type StepSummary, type TimedStatus } from '../../load/probe/analysis.js';
import { burstFromVolley } from '../../load/probe/burst.js';
import { judge } from '../../load/probe/judge.js';
import { bracket, classifyStep, nextStep, successRunShare, type StepRecord, type SteppingRules } from '../../load/probe/stepper.js';

const rules: SteppingRules = { startRate: 5, factor: 2, maxRate: 2000, refineSteps: 2, precision: 0.1 };

/** Walks nextStep against a limiter that throttles above `limit` (and saturates above `capacity`). */
function walk(limit: number, r: SteppingRules = rules, capacity = Infinity) {
  const steps: StepRecord[] = [];
  for (let n = 0; n < 50; n++) {
    const next = nextStep(steps, r);
    if ('done' in next) return { steps, done: next };
    const cls = next.rate > capacity ? 'saturated' : next.rate > limit * 1.03 ? 'throttled' : 'clean';
    steps.push({ offered: next.rate, phase: next.phase, class: cls });
  }
  throw new Error('no end');
}

/**
 * An open-model step at `offered` req/s for `seconds`, against a token bucket emptied at 0. With `stallMs`,
 * every 250 ms the sender pauses that long and then sends what was due at once (a busy machine).
 */
function tokenBucketStep(rate: number, burst: number, offered: number, seconds: number, stallMs = 0): TimedStatus[] {
  let now = 0;
  const limiter = new RateLimiter(() => now);
  const plan = { ratePerSecond: rate, burst, maxBlocks: 1 };
  while (limiter.take('k', plan).allowed);
  const out: TimedStatus[] = [];
  for (let i = 1; i <= offered * seconds; i++) {
    let t = (i / offered) * 1000;
    if (stallMs && t % 250 < stallMs) t = Math.floor(t / 250) * 250 + stallMs;
    now = t;
    out.push({ t, status: limiter.take('k', plan).allowed ? 200 : 429 });
  }
  return out;
}

/** The same against a fixed window of `quota` per `windowMs`, the current one used up at 0. */
function fixedWindowStep(quota: number, windowMs: number, offered: number, seconds: number, phaseMs: number): TimedStatus[] {
  const used = new Map<number, number>([[Math.floor(-phaseMs / windowMs), quota]]);
  const out: TimedStatus[] = [];
  for (let i = 1; i <= offered * seconds; i++) {
    const t = (i / offered) * 1000;
    const w = Math.floor((t - phaseMs) / windowMs);
    const n = used.get(w) ?? 0;
    used.set(w, n + 1);
    out.push({ t, status: n < quota ? 200 : 429 });
  }
  return out;
}

const step = (offered: number, accepted2xx: number, throttled429: number, extra: Partial<StepSummary> = {}): StepSummary => ({
  offered, accepted2xx, throttled429, other: 0, notSent: 0, sent: accepted2xx + throttled429, scheduled: accepted2xx + throttled429, durationS: 1, ...extra,
});

describe('stepping', () => {
  it('doubles from the start rate to the first throttled step, then bisects twice', () => {
    const { steps, done } = walk(20);
    expect(steps.map((s) => s.offered)).toEqual([5, 10, 20, 40, 30, 25]);
    expect(steps.map((s) => s.phase)).toEqual(['geometric', 'geometric', 'geometric', 'geometric', 'bisect', 'bisect']);
    expect(done).toEqual({ done: 'bracketed', clean: 20, throttled: 25 });
  });

  it('bisects down from zero when the first step is already throttled', () => {
    const { steps, done } = walk(1);
    expect(steps.map((s) => s.offered)).toEqual([5, 2.5, 1.25]);
    expect(done).toEqual({ done: 'bracketed', clean: 0, throttled: 1.25 });
  });

  it('stops at the maximum rate without a limit, and at a saturated step', () => {
    expect(walk(Infinity, { ...rules, maxRate: 100 })).toMatchObject({ done: { done: 'no-limit', upTo: 100 } });
    expect(walk(Infinity, { ...rules, maxRate: 100 }).steps.map((s) => s.offered)).toEqual([5, 10, 20, 40, 80, 100]);
    expect(walk(Infinity, rules, 50).done).toEqual({ done: 'saturated', upTo: 40, at: 80 });
  });

  it('stops refining once the bracket is within the precision', () => {
    const { steps } = walk(47, { ...rules, startRate: 45, refineSteps: 10 });
    expect(steps.map((s) => s.offered)).toEqual([45, 90, 67.5, 56.25, 50.625, 47.8125]);
    expect(bracket(steps)).toEqual({ clean: 47.8125, throttled: 50.625 });
  });

  it('classifies a step: two 429s and 3 % throttle it; unsent or unanswered requests saturate it', () => {
    expect(classifyStep({ sent: 100, notSent: 0, throttled429: 1, other: 0, scheduled: 100 })).toBe('clean');
    expect(classifyStep({ sent: 100, notSent: 0, throttled429: 3, other: 0, scheduled: 100 })).toBe('throttled');
    expect(classifyStep({ sent: 5, notSent: 0, throttled429: 2, other: 0, scheduled: 5 })).toBe('throttled');
    expect(classifyStep({ sent: 90, notSent: 10, throttled429: 0, other: 0, scheduled: 100 })).toBe('saturated');
  });
});

describe('step analysis', () => {
  it('takes the sustained limit from the steps clearly over it', () => {
    const steps = [step(10, 10, 0), step(20, 20, 0), step(40, 20, 20), step(30, 20, 10), step(25, 20, 1)];
    // 25 req/s (4 % refused) is throttled but not clearly: only 40 and 30 count.
    expect(sustainedFromSteps(steps)).toEqual({ ratePerSecond: 20, fromSteps: [40, 30] });
    expect(sustainedFromSteps([step(10, 10, 0), step(21, 20, 1, { sent: 21 }), step(22, 20, 2)])).toEqual({ ratePerSecond: 20, fromSteps: [22] });
    expect(sustainedFromSteps([step(10, 10, 0)])).toEqual({ fromSteps: [] });
    expect(sustainedFromSteps([step(40, 41, 39, { durationS: 2 })]).ratePerSecond).toBe(20.5);
  });

  it('takes the burst from a volley: successes less the refill while it ran, plus half a token left over', () => {
    const v = { ok: 41, firstReceivedAt: 1000, lastReceivedAt: 1050, first429: { status: 429, sentAt: 0, receivedAt: 1040, headers: {} } };
    expect(burstFromVolley(v, 20)).toBeCloseTo(40.5);
    expect(burstFromVolley({ ...v, ok: 10, lastReceivedAt: 1010 }, 50)).toBeCloseTo(10);
    expect(burstFromVolley({ ...v, first429: undefined }, 20)).toBeUndefined();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  it('tells a token bucket (a trickle) from a fixed window (batches at window edges)', () => {
    const bucket = tokenBucketStep(50, 10, 200, 1);
    expect(successRunShare(bucket.map((r) => r.status))).toBe(0);
    expect(limiterShape({ offered: 200, requests: bucket }, { ratePerSecond: 50, burst: 10 })).toMatchObject({ shape: 'token-bucket', distance: { tokenBucket: 0 } });
    const window = fixedWindowStep(10, 200, 200, 1, 70);
    expect(successRunShare(window.map((r) => r.status))).toBeGreaterThan(0.85);
    expect(limiterShape({ offered: 200, requests: window }, { ratePerSecond: 50, burst: 10 })).toMatchObject({ shape: 'fixed-window', distance: { fixedWindow: 0 } });
    // A window longer than the step: no success at all in it is still a fixed window's answer, not a bucket's.
    const long = fixedWindowStep(40, 2000, 80, 1, 500);
    expect(limiterShape({ offered: 80, requests: long }, { ratePerSecond: 20, burst: 40 }).shape).toBe('fixed-window');
    expect(limiterShape({ offered: 80, requests: tokenBucketStep(20, 40, 80, 1) }, { ratePerSecond: 20, burst: 40 }).shape).toBe('token-bucket');
  });

  it('is not fooled by a sender that pauses and then sends in a bunch', () => {
    const stalled = tokenBucketStep(50, 10, 200, 2, 120);
    // Successes now come in runs after each pause (the bucket refilled meanwhile) ...
    expect(successRunShare(stalled.map((r) => r.status))).toBeGreaterThan(0.35);
    // ... which the send times explain: still a token bucket.
    expect(limiterShape({ offered: 200, requests: stalled, startMs: 0 }, { ratePerSecond: 50, burst: 10 }).shape).toBe('token-bucket');
  });

  it('says "unknown" when it cannot tell', () => {
    // Too close to the limit, too few answers, no measured limits, or a burst of 1 (both models are the same limiter).
    expect(limiterShape({ offered: 24, requests: tokenBucketStep(20, 20, 24, 2) }, { ratePerSecond: 20, burst: 20 }).shape).toBe('unknown');
    expect(limiterShape({ offered: 80, requests: [{ t: 0, status: 200 }, { t: 10, status: 429 }] }, { ratePerSecond: 20, burst: 20 }).shape).toBe('unknown');
    expect(limiterShape({ offered: 200, requests: tokenBucketStep(50, 10, 200, 1) }, {}).shape).toBe('unknown');
    expect(limiterShape({ offered: 200, requests: tokenBucketStep(50, 1, 200, 1) }, { ratePerSecond: 50, burst: 1 }).shape).toBe('unknown');
    expect(limiterShape(undefined, {}).shape).toBe('unknown');
  });

  it('gates on --expect-rate and --expect-burst within the tolerance, and fails without a measurement', () => {
    expect(expectGate('expect-rate', 20, 21.9, 10, 'req/s', '').status).toBe('pass');
    expect(expectGate('expect-rate', 20, 22.1, 10, 'req/s', '').status).toBe('fail');
    expect(expectGate('expect-burst', 10, 9, 10, 'requests', '').status).toBe('pass');
    expect(expectGate('expect-rate', 50, undefined, 10, 'req/s', 'no limit found up to 200 req/s')).toMatchObject({ status: 'fail', message: expect.stringContaining('no limit found up to 200 req/s') });
    expect(expectGate('expect-rate', undefined, 20, 10, 'req/s', '').status).toBe('not-requested');
  });

  // A number the probe reports must be the service's: when the probe stopped for its own reasons (its machine
  // could not offer the rate, or its budget ran out), --expect-rate is not testable, not failed.
  it('--expect-rate is not testable when the probe, not the service, stopped the steps, and fails when the service served past it', () => {
    const base = { on429: { total: 0, withRetryAfter: 0, missing: 0, malformed: 0, rpcCodes: [] }, retryAfter: {}, isolation: undefined, isolationNote: 'n/a', rate: undefined, burst: undefined, noLimitUpTo: undefined, o: { expectRate: 50, tolerancePct: 10 } };
    const rateVerdict = (x: Partial<Parameters<typeof judge>[0]>) => judge({ ...base, stop: undefined, ...x }).find((v) => v.id === 'expect-rate')!;
    const bound = 'generator-bound: the probe could not offer 80 req/s on this machine (requests went out up to 400 ms late: its event loop stalled)';
    expect(rateVerdict({ stop: 'generator-bound', cleanUpTo: 40, probeBound: bound })).toMatchObject({ status: 'not-testable', message: expect.stringContaining('could not offer 80 req/s on this machine') });
    expect(rateVerdict({ stop: 'time budget', cleanUpTo: 40, probeBound: "the probe's time budget stopped the steps before one was throttled" }).status).toBe('not-testable');
    // Served without a 429 well past the expected rate: the service's doing, whatever stopped the probe then.
    expect(rateVerdict({ stop: 'time budget', cleanUpTo: 80, probeBound: "the probe's time budget stopped the steps" })).toMatchObject({ status: 'fail', message: expect.stringContaining('up to 80 req/s were served without throttling') });
    // No limit up to the highest rate asked for is the service's answer: a failure, as before.
    expect(rateVerdict({ stop: 'no-limit', noLimitUpTo: 160, cleanUpTo: 160 }).status).toBe('fail');
    expect(rateVerdict({ stop: 'bracketed', rate: 50.5 }).status).toBe('pass');
  });
});
