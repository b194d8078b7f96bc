import type { ScenarioResult } from './load-results.js';

/**
 * A scenario run `rounds.length` times back to back, as one result: the round of median throughput, whole
 * (its latencies, histogram and throughput belong together), so a regression compares medians, not one
 * lucky or unlucky sample (two back-to-back rounds on a shared machine differed by half). Errors are every
 * round's: an error in any round is an error of the run. `rounds` lists each.
 */
export function medianRound(rounds: readonly ScenarioResult[]): ScenarioResult {
  if (rounds.length === 1) return rounds[0]!;
  const ordered = [...rounds].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const median = ordered[Math.floor((ordered.length - 1) / 2)]!;
  const errorsByKind = { ...median.errorsByKind };
  for (const kind of Object.keys(errorsByKind) as (keyof typeof errorsByKind)[]) errorsByKind[kind] = rounds.reduce((n, r) => n + r.errorsByKind[kind], 0);
  const errors = rounds.reduce((n, r) => n + r.errors, 0);
  const attempts = rounds.reduce((n, r) => n + (r.errorRate > 0 ? r.errors / r.errorRate : r.requests), 0);
  return {
    ...median,
    errors,
    errorsByKind,
    errorRate: attempts > 0 ? errors / attempts : 0,
    rounds: rounds.map((r) => ({ requestsPerSecond: r.requestsPerSecond, p99: r.latencyMs.p99, errors: r.errors })),
  };
}
