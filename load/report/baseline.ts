/**
 * The stored baseline: a load.json of an earlier run (a committed file, or the previous CI run's artefact),
 * and this run compared with it, scenario by scenario, on throughput and p99.
 */
import { readFileSync } from 'node:fs';
import type { BaselineComparison, BaselineScenarioComparison, LoadReport, MetricComparison, ScenarioResult } from './load-results.js';
import { loadReportProblems } from './load-json.js';
import { median } from '../probe/analysis.js';

export class BaselineError extends Error {}

export function readBaseline(file: string): LoadReport {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BaselineError(`--baseline ${file}: ${(err as Error).message}`);
  }
  const problems = loadReportProblems(parsed);
  if (problems.length > 0) throw new BaselineError(`--baseline ${file} is not a load.json (reports/load.schema.json): ${problems.slice(0, 3).join('; ')}`);
  return parsed as LoadReport;
}

function compare(baseline: number, current: number): MetricComparison {
  return { baseline, current, changePct: baseline === 0 ? null : Math.round(((current - baseline) / baseline) * 1000) / 10 };
}

/**
 * The regression of one scenario: the larger of the throughput drop and the p99 rise, in percent. A faster
 * run gives a negative number. Null when the baseline has neither (no response completed then).
 */
export function regressionPct(rps: MetricComparison, p99: MetricComparison): number | null {
  const parts: number[] = [];
  if (rps.changePct !== null) parts.push(-rps.changePct);
  if (p99.changePct !== null) parts.push(p99.changePct);
  return parts.length === 0 ? null : Math.max(...parts);
}

/**
 * A scenario's p99 for the comparison: the median of its rounds' p99 when it ran several (the median round's
 * own p99 is one sample, and a p99 of a few milliseconds moves by a third between rounds), else its p99.
 */
function comparedP99(s: ScenarioResult): number {
  return (s.rounds && s.rounds.length > 1 ? median(s.rounds.map((r) => r.p99)) : undefined) ?? s.latencyMs.p99;
}

export function compareScenario(current: ScenarioResult, baseline: ScenarioResult): BaselineScenarioComparison {
  // The median round's req/s is the median of the rounds' (load/report/rounds.ts).
  const rps = compare(baseline.requestsPerSecond, current.requestsPerSecond);
  const p99 = compare(comparedP99(baseline), comparedP99(current));
  return { name: current.name, requestsPerSecond: rps, p99, errors: { baseline: baseline.errors, current: current.errors }, regressionPct: regressionPct(rps, p99) };
}

export function compareWithBaseline(current: ScenarioResult[], baseline: LoadReport, file: string): BaselineComparison {
  const scenarios: BaselineScenarioComparison[] = [];
  const missing: string[] = [];
  for (const s of current) {
    const b = baseline.scenarios.find((x) => x.name === s.name);
    if (b) scenarios.push(compareScenario(s, b));
    else missing.push(s.name);
  }
  return { file, startedAt: baseline.startedAt, scenarios, missing };
}
