import { describe, expect, it } from 'vitest';
import { comparePairedScenario } from '../../load/report/baseline.js';
import type { RoundPair, ScenarioResult } from '../../load/report/load-results.js';
import { judgedEnd, meanInterval, pairedChange, regressionInterval, tQuantile975 } from '../../load/report/paired.js';
import { evaluateThresholds, parseThreshold } from '../../load/report/thresholds.js';

// The paired comparison's statistics on fixed inputs: the interval, and the decision taken on it.
// Hand-checked values: mean and sd by hand, t from a table.

describe('the t interval of a mean', () => {
  it('is mean ± t(0.975, n − 1) × sd / √n', () => {
    const m = meanInterval([1, 2, 3, 4, 5]);
    expect(m.mean).toBe(3);
    expect(m.sd).toBeCloseTo(Math.sqrt(2.5), 12);
    // t(0.975, 4) = 2.776; 2.776 × 1.5811 / √5 = 1.9629.
    expect(m.low).toBeCloseTo(1.0371, 4);
    expect(m.high).toBeCloseTo(4.9629, 4);
  });

  it('uses the table of t, the last row for 30 degrees and more, and needs two values', () => {
    expect(tQuantile975(1)).toBe(12.706);
    expect(tQuantile975(5)).toBe(2.571);
    expect(tQuantile975(30)).toBe(2.042);
    expect(tQuantile975(200)).toBe(2.042);
    expect(() => tQuantile975(0)).toThrow(RangeError);
    expect(() => meanInterval([1])).toThrow(RangeError);
  });
});

describe('the change over pairs of rounds', () => {
  it('is the geometric mean of the ratios with the interval of their logs, in percent', () => {
    // logs −0.3567, −0.2231, −0.5108: mean −0.3636, sd 0.1440, half width 4.303 × 0.1440 / √3 = 0.3577.
    expect(pairedChange([1000, 1000, 1000], [700, 800, 600])).toEqual({ changePct: -30.5, lowPct: -51.4, highPct: -0.6, noisePct: 14.4 });
  });

  it('of a steady 30 % slowdown is narrow; of the same code, it straddles zero', () => {
    expect(pairedChange([500, 520, 480, 510, 490, 505], [350, 370, 340, 360, 345, 355])).toEqual({ changePct: -29.5, lowPct: -29.9, highPct: -29, noisePct: 0.6 });
    expect(pairedChange([1000, 1000, 1000, 1000, 1000, 1000], [1010, 985, 1003, 990, 1020, 995])).toEqual({ changePct: 0, lowPct: -1.3, highPct: 1.4, noisePct: 1.3 });
  });

  it('widens with the noise of the pairs, so the same mean change proves less', () => {
    const noisy = pairedChange([500, 520, 480, 510, 490, 505], [350, 520, 300, 600, 345, 355])!;
    expect(noisy).toEqual({ changePct: -20.4, lowPct: -38.7, highPct: 3.4, noisePct: 24.9 });
  });

  it('leaves out pairs with a zero and is null with fewer than two left', () => {
    expect(pairedChange([0, 100, 100], [50, 80, 80])).toEqual({ changePct: -20, lowPct: -20, highPct: -20, noisePct: 0 });
    expect(pairedChange([0, 100], [50, 80])).toBeNull();
  });
});

describe('the regression interval', () => {
  const rps = { changePct: -30, lowPct: -35, highPct: -25, noisePct: 3 };
  const p99 = { changePct: 10, lowPct: -5, highPct: 20, noisePct: 8 };

  it('is the larger of the req/s drop and the p99 rise, end by end', () => {
    expect(regressionInterval(rps, p99)).toEqual({ estimatePct: 30, lowPct: 25, highPct: 35 });
    expect(regressionInterval(null, p99)).toEqual({ estimatePct: 10, lowPct: -5, highPct: 20 });
    expect(regressionInterval(null, null)).toBeNull();
  });

  it('is judged on the end that gives the candidate the benefit of the doubt', () => {
    const r = { estimatePct: 30, lowPct: 25, highPct: 35 };
    expect(judgedEnd(r, '<=')).toBe(25);
    expect(judgedEnd(r, '<')).toBe(25);
    expect(judgedEnd(r, '>=')).toBe(35);
    expect(judgedEnd(r, '==')).toBe(30);
  });
});

describe('the gate regression<=20% on pairs of rounds', () => {
  const scenario = { name: 'tools-list', errors: 0 } as ScenarioResult;
  // p99 0: not measured, so the req/s alone decides.
  const pairs = (base: number[], current: number[], p99 = 0): RoundPair[] => base.map((b, i) => ({
    order: 'together', baseline: { requestsPerSecond: b, p99 }, current: { requestsPerSecond: current[i]!, p99 },
  }));
  const gate = (p: RoundPair[]) => {
    const comparison = comparePairedScenario({ current: scenario, baseline: scenario, pairs: p });
    const [result] = evaluateThresholds([parseThreshold('regression<=20%')], [scenario], { baseUrl: 'http://127.0.0.1:1', startedAt: '', scenarios: [comparison], missing: [] });
    return { comparison, result: result! };
  };

  it('fails a steady 30 % slowdown: the whole interval is above 20 %', () => {
    const { comparison, result } = gate(pairs([500, 520, 480, 510, 490, 505], [350, 370, 340, 360, 345, 355]));
    expect(comparison.regressionPct).toBe(29.5);
    expect(comparison.requestsPerSecond).toMatchObject({ baseline: 502.5, current: 352.5, changePct: -29.5 });
    expect(result).toMatchObject({ ok: false, actual: 29 });
    expect(result.note).toMatch(/^regression \+29\.5 % \(95 % interval \+29\.0 … \+29\.9 %, 6 pairs; req\/s −29\.5 % \[−29\.9, −29\.0\], noise 0\.6 %\/pair; .*judged on the interval's low end$/);
  });

  it('passes a 20 % mean slowdown in pairs too noisy to tell it from 20 % or less', () => {
    const { comparison, result } = gate(pairs([500, 520, 480, 510, 490, 505], [350, 520, 300, 600, 345, 355]));
    expect(comparison.regressionPct).toBe(20.4);
    expect(result).toMatchObject({ ok: true, actual: -3.4 });
  });

  it('passes the same code', () => {
    expect(gate(pairs([1000, 1000, 1000, 1000, 1000, 1000], [1010, 985, 1003, 990, 1020, 995])).result).toMatchObject({ ok: true, actual: -1.4 });
  });
});
