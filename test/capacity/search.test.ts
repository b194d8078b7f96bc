/**
 * The search's logic on a simulated service whose answer is known exactly (no network, no clock): geometric
 * steps, bisection to the tolerance, confirmation, and the bound it names (SLO, rate limit, generator, cap,
 * time). The real driver against real endpoints of known capacity is proven in known-capacity.test.ts.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { searchCapacity, type SearchOptions, type StepRunner } from '../../load/capacity/search.js';
import { parseSlo } from '../../load/capacity/slo.js';
import { defaultGeneratorBounds } from '../../load/capacity/step-judge.js';
import { scenarioByName } from '../../load/scenarios.js';
import { SimulatedRunner } from './helpers/simulated-runner.js';

const slo = parseSlo('p99<=50ms,errors<=1%');

function options(runner: StepRunner, over: Partial<SearchOptions> = {}): SearchOptions {
  return {
    scenario: scenarioByName('tools-list')!, slo, runner, arrivals: 'constant', seed: 1, startRate: 50, maxRate: 5000, tolerance: 0.05,
    warmupMs: 0, windowMs: 1000, maxWindowMs: 10_000, deadline: performance.now() + 3_600_000, bounds: defaultGeneratorBounds(slo), ...over,
  };
}

describe('the capacity search on a simulated service', () => {
  it('brackets an SLO break within the tolerance: sustained <= capacity < broke, and says "slo"', async () => {
    for (const capacity of [73, 310, 1234, 4321]) {
      const runner = new SimulatedRunner({ capacity });
      const r = await searchCapacity(options(runner));
      expect(r.bound, `capacity ${capacity}`).toBe('slo');
      expect(r.sustained!).toBeLessThanOrEqual(capacity);
      expect(r.broke!).toBeGreaterThan(capacity);
      expect((r.broke! - r.sustained!) / r.broke!).toBeLessThanOrEqual(0.05);
      expect(r.sustained! / capacity).toBeGreaterThanOrEqual(0.95);
      // The rate found was confirmed by a step of its own.
      expect(r.steps.filter((s) => s.phase === 'confirm' && s.verdict === 'pass').map((s) => s.offered)).toContain(r.sustained);
    }
  });

  it('steps down from a start rate that does not hold', async () => {
    const runner = new SimulatedRunner({ capacity: 12 });
    const r = await searchCapacity(options(runner, { startRate: 100 }));
    expect(runner.rates.slice(0, 4), JSON.stringify(r.steps.map((s) => [s.phase, s.offered, s.verdict, s.windowS, s.reason]))).toEqual([100, 50, 25, 12.5]);
    expect(r.sustained, r.summary).not.toBeNull();
    expect(r.bound).toBe('slo');
    expect(r.sustained!).toBeLessThanOrEqual(12);
    expect(r.sustained!).toBeGreaterThanOrEqual(11.4);
    // 384 samples for a p99 at 6.25 req/s: a 68 s window, not a 10 s one that decides nothing.
    expect(r.steps.find((s) => s.offered === 6.25)!.latencyMs.planned.count).toBeGreaterThanOrEqual(384);
  });

  it('stops going down when half the rate is no better: the SLO breaks whatever the rate', async () => {
    // Every request takes 200 ms at any rate: latency that is the service's, not its load's.
    const runner = new SimulatedRunner({ capacity: 0.001, tail: 1 });
    const r = await searchCapacity(options(runner, { startRate: 100 }));
    expect(runner.rates).toEqual([100, 50]);
    expect(r.bound).toBe('slo');
    expect(r.sustained).toBeNull();
    expect(r.summary).toMatch(/the SLO breaks whatever the rate: p99<=50ms measured \d+ ms at 100 req\/s and \d+ ms at 50 req\/s/);
  });

  it('never takes 429s for capacity: bound "rate-limit", nothing sustained at or above the limit', async () => {
    const runner = new SimulatedRunner({ capacity: 4000, limit: 600 });
    const r = await searchCapacity(options(runner));
    expect(r.bound).toBe('rate-limit');
    expect(r.broke).toBeNull();
    // What held below the 429s is not a capacity either: reported apart.
    expect(r.sustained).toBeNull();
    expect(r.rateLimit!.heldUpTo!).toBeLessThan(600);
    expect(r.rateLimit!.heldUpTo!).toBeGreaterThanOrEqual(570);
    expect(r.rateLimit!.firstAt).toBeGreaterThanOrEqual(600);
    expect(r.summary).toMatch(/^no capacity: 429s from \d+ req\/s, a rate limit/);
  });

  it('says "generator" (at least) when the generator cannot offer a step, after its retries', async () => {
    const runner = new SimulatedRunner({ capacity: 100_000, generator: 1500 });
    const r = await searchCapacity(options(runner));
    expect(r.bound).toBe('generator');
    expect(r.broke).toBeNull();
    expect(r.sustained).toBe(800);
    expect(runner.rates.filter((x) => x === 1600)).toHaveLength(3);
    expect(r.summary).toMatch(/^at least 800 req\/s: the generator could not offer more/);
  });

  it('says "cap" when --max-rate holds, and no step goes beyond it', async () => {
    const runner = new SimulatedRunner({ capacity: 100_000 });
    const r = await searchCapacity(options(runner, { maxRate: 700 }));
    expect(r.bound).toBe('cap');
    expect(r.sustained).toBe(700);
    expect(Math.max(...runner.rates)).toBe(700);
  });

  it('plans no step above the calibrated generator ceiling', async () => {
    const runner = new SimulatedRunner({ capacity: 100_000 });
    const r = await searchCapacity(options(runner, { generatorCeiling: 900 }));
    expect(Math.max(...runner.rates)).toBe(900);
    expect(r.bound).toBe('generator');
    expect(r.sustained).toBe(900);
  });

  it('a hold that breaks on its second look is not reported', async () => {
    const found = (await searchCapacity(options(new SimulatedRunner({ capacity: 790 })))).sustained!;
    // `found` held by luck: every later step at it breaks.
    const runner = new SimulatedRunner({ capacity: 790, disturbed: (rate, nth) => rate === found && nth >= 2 });
    const r = await searchCapacity(options(runner));
    expect(r.sustained!).toBeLessThan(found);
    expect(r.bound).toBe('slo');
    expect(r.steps.some((s) => s.phase === 'confirm' && s.verdict === 'fail' && s.offered === found)).toBe(true);
  });

  it('a break that holds on its second look was a disturbance: the bisection goes on above it', async () => {
    // The first step at 800 is disturbed (a moment's stall); the service holds 1,000.
    const runner = new SimulatedRunner({ capacity: 1000, disturbed: (rate, nth) => rate === 800 && nth === 1 });
    const r = await searchCapacity(options(runner));
    expect(r.steps.find((s) => s.offered === 800)!.verdict).toBe('fail');
    expect(r.sustained!).toBeGreaterThanOrEqual(950);
    expect(r.sustained!).toBeLessThanOrEqual(1000);
    expect(r.steps.some((s) => s.phase === 'confirm' && s.offered === 800 && s.verdict === 'pass')).toBe(true);
  });

  it('makes a window long enough for the samples a pass needs, however short --window', async () => {
    const runner = new SimulatedRunner({ capacity: 1000 });
    // p99.9 needs 3,838 samples: at 100 req/s a 1 s window cannot show it, a 42 s one can.
    const strict = parseSlo('p99.9<=50ms');
    const r = await searchCapacity(options(runner, { slo: strict, bounds: defaultGeneratorBounds(strict), startRate: 100, maxRate: 100, windowMs: 1000 }));
    expect(r.steps[0]!.verdict).toBe('pass');
    expect(r.steps[0]!.latencyMs.planned.count).toBeGreaterThanOrEqual(3838);
  });

  it('extends a step that cannot decide, then counts it as not holding', async () => {
    // 1 % of requests beyond the threshold of a p99: the interval straddles the allowed share at any length.
    const runner = new SimulatedRunner({ capacity: 1000, tail: 0.01 });
    const r = await searchCapacity(options(runner, { startRate: 400, maxRate: 400, windowMs: 1000, maxWindowMs: 8000 }));
    const first = r.steps[0]!;
    expect(first.verdict).toBe('uncertain');
    // Windows of 1.06 s (384 samples for a p99 at 400 req/s), extended up to the 8 s allowed.
    expect(first.windowS).toBeGreaterThan(7);
    expect(first.reason).toMatch(/undecided after the longest window.*counted as not holding/);
    expect(r.sustained === null || r.sustained < 400).toBe(true);
  });

  it('ends with bound "time" when the budget runs out before a bracket', async () => {
    const runner = new SimulatedRunner({ capacity: 1000 });
    const r = await searchCapacity(options(runner, { deadline: performance.now() - 1 }));
    expect(r.bound).toBe('time');
  });
});
