/** The SLO's terms as written on the command line, and the statistics that decide a term: shares with Wilson intervals. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeShare, minSamples, parseSlo, readSloFile, samplesToDecide, termsProblem, wilson } from '../../load/capacity/slo.js';

describe('SLO terms', () => {
  it('reads latency, streaming and error terms with their units', () => {
    const slo = parseSlo('p99<=75ms, p99.9<=0.2s, ttfp-p99<=500us, ttfr-p95<=2s, errors<=0.5%');
    expect(slo.terms).toEqual([
      { kind: 'latency', metric: 'latency', quantile: 0.99, thresholdMs: 75, text: 'p99<=75ms' },
      { kind: 'latency', metric: 'latency', quantile: 0.999, thresholdMs: 200, text: 'p99.9<=0.2s' },
      { kind: 'latency', metric: 'ttfp', quantile: 0.99, thresholdMs: 0.5, text: 'ttfp-p99<=500us' },
      { kind: 'latency', metric: 'ttfr', quantile: 0.95, thresholdMs: 2000, text: 'ttfr-p95<=2s' },
      { kind: 'errors', maxShare: 0.005, text: 'errors<=0.5%' },
    ]);
  });

  it('refuses what it cannot judge, naming the term', () => {
    expect(() => parseSlo('')).toThrow(/no terms/);
    expect(() => parseSlo('p99<75ms')).toThrow(/"p99<75ms" is not one of/);
    expect(() => parseSlo('p100<=1s')).toThrow(/below 100/);
    expect(() => parseSlo('p99<=0ms')).toThrow(/above 0/);
    expect(() => parseSlo('errors<=100%')).toThrow(/below 100 %/);
    expect(() => parseSlo('p99<=1s,p99<=2s')).toThrow(/twice/);
    expect(termsProblem(parseSlo('ttfr-p99<=1s'), 'tools-list', false)).toMatch(/tools-list does not stream: ttfr-p99<=1s/);
    expect(termsProblem(parseSlo('ttfr-p99<=1s'), 'schedule-preview', true)).toBeUndefined();
  });

  it('reads per-scenario SLOs from a file, with a default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slo-'));
    const file = join(dir, 'slo.json');
    writeFileSync(file, JSON.stringify({ default: 'p99<=50ms', 'schedule-preview': 'ttfr-p99<=2s,errors<=1%' }));
    const slos = readSloFile(file, ['tools-list', 'schedule-preview'], 'p99<=75ms');
    expect(slos.get('tools-list')!.text).toBe('p99<=50ms');
    expect(slos.get('schedule-preview')!.text).toBe('ttfr-p99<=2s,errors<=1%');
    writeFileSync(file, JSON.stringify({ 'blocks-list': 'p99<=50ms' }));
    expect(() => readSloFile(file, ['tools-list'], 'p99<=75ms')).toThrow(/"blocks-list" is not a chosen scenario/);
    writeFileSync(file, '{');
    expect(() => readSloFile(file, ['tools-list'], 'p99<=75ms')).toThrow(/--slo-file/);
  });
});

describe('deciding a term', () => {
  it('Wilson intervals: honest at zero and for few samples', () => {
    const [lo, hi] = wilson(0, 384);
    expect(lo).toBe(0);
    expect(hi).toBeLessThanOrEqual(0.01);
    expect(wilson(0, 40)[1]).toBeGreaterThan(0.08);
    const [a, b] = wilson(50, 100);
    expect(a).toBeCloseTo(0.404, 2);
    expect(b).toBeCloseTo(0.596, 2);
  });

  it('needs 384 samples to show a p99 (or errors<=1%), 3,838 for a p99.9', () => {
    expect(samplesToDecide(0.01)).toBe(381);
    expect(samplesToDecide(0.001)).toBe(3838);
    expect(minSamples(parseSlo('p99<=75ms,errors<=1%'))).toBe(381);
    expect(minSamples(parseSlo('p90<=75ms'))).toBe(35);
    // At that count, no exceedance passes; one fewer sample cannot.
    expect(judgeShare('p99<=75ms', 0, 381, 0.01, 5, 75).verdict).toBe('pass');
    expect(judgeShare('p99<=75ms', 0, 380, 0.01, 5, 75).verdict).toBe('uncertain');
  });

  it('a p99 from 40 samples decides nothing unless it is far off', () => {
    expect(judgeShare('p99<=75ms', 0, 40, 0.01, 5, 75).verdict).toBe('uncertain');
    expect(judgeShare('p99<=75ms', 1, 40, 0.01, 90, 75).verdict).toBe('uncertain');
    expect(judgeShare('p99<=75ms', 10, 40, 0.01, 300, 75).verdict).toBe('fail');
    expect(judgeShare('p99<=75ms', 10, 1000, 0.01, 80, 75).verdict).toBe('uncertain');
    expect(judgeShare('p99<=75ms', 30, 1000, 0.01, 80, 75).verdict).toBe('fail');
  });

  it('errors<=0% fails on one error', () => {
    expect(judgeShare('errors<=0%', 1, 10_000, 0, 0.0001, 0).verdict).toBe('fail');
    expect(judgeShare('errors<=0%', 0, 10, 0, 0, 0).verdict).toBe('pass');
  });
});
