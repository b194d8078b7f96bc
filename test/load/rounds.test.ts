import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../load/report/load-results.js';
import { medianRound } from '../../load/report/rounds.js';

const round = (rps: number, p99: number, errors: number, requests = 1000): ScenarioResult => ({
  name: 'tools-list', requestsPerSecond: rps, requests, latencyMs: { p99 }, errors, errorRate: errors / (requests + 0),
  errorsByKind: { 'http-429': errors, 'http-5xx': 0 },
} as unknown as ScenarioResult);

describe('a scenario of several rounds', () => {
  it('is its round of median throughput, whole, with every round listed', () => {
    const slow = round(500, 40, 0);
    const median = round(800, 20, 0);
    const fast = round(1200, 10, 0);
    const r = medianRound([fast, slow, median]);
    expect(r.requestsPerSecond).toBe(800);
    expect(r.latencyMs.p99).toBe(20);
    expect(r.rounds).toEqual([{ requestsPerSecond: 1200, p99: 10, errors: 0 }, { requestsPerSecond: 500, p99: 40, errors: 0 }, { requestsPerSecond: 800, p99: 20, errors: 0 }]);
  });

  it("counts the errors of every round: an error in the fast round is the run's too", () => {
    const r = medianRound([round(1200, 10, 5), round(800, 20, 0), round(500, 40, 0)]);
    expect(r.requestsPerSecond).toBe(800);
    expect(r.errors).toBe(5);
    expect(r.errorsByKind['http-429']).toBe(5);
    expect(r.errorRate).toBeCloseTo(5 / 3000, 6);
  });

  it('of an even count is the lower middle; of one round, that round as it is', () => {
    expect(medianRound([round(1, 1, 0), round(4, 1, 0), round(2, 1, 0), round(3, 1, 0)]).requestsPerSecond).toBe(2);
    const only = round(7, 1, 0);
    expect(medianRound([only])).toBe(only);
  });
});
