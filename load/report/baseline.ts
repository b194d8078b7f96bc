/**
 * The comparison with a baseline, scenario by scenario, on throughput and p99: a stored load.json of an
 * earlier run (--baseline: a committed file, or the previous CI run's artefact), or a second server loaded
 * in this run, round for round alternately with the target (--baseline-url; load/report/paired.ts).
 */
import { readFileSync } from 'node:fs';
import type { BaselineComparison, BaselineScenarioComparison, PairedComparison, LoadReport, MetricComparison, RoundPair, ScenarioResult } from './load-results.js';
import { CONFIDENCE, pairedChange, regressionInterval } from './paired.js';
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

export const PAIRED_METHOD = 'per pair of rounds, log(candidate / baseline) of req/s and of p99; Student\'s t interval of their mean '
  + `(n − 1 degrees of freedom, ${CONFIDENCE * 100} % two-sided), back in percent; the regression is the larger of the req/s drop `
  + 'and the p99 rise, and a regression threshold fails only when the whole interval is beyond it';

/** One scenario loaded in pairs of rounds: the candidate's and the baseline's median rounds and every pair. */
export interface PairedScenario {
  current: ScenarioResult;
  baseline: ScenarioResult;
  pairs: RoundPair[];
}

export function comparePairedScenario({ current, baseline, pairs }: PairedScenario): BaselineScenarioComparison {
  const rpsChange = pairedChange(pairs.map((p) => p.baseline.requestsPerSecond), pairs.map((p) => p.current.requestsPerSecond));
  const p99Change = pairedChange(pairs.map((p) => p.baseline.p99), pairs.map((p) => p.current.p99));
  const regression = regressionInterval(rpsChange, p99Change);
  const paired: PairedComparison = { method: PAIRED_METHOD, confidence: CONFIDENCE, pairs, requestsPerSecond: rpsChange, p99: p99Change, regression };
  // The medians, for reading; the change is the paired estimate, which the interval surrounds.
  const metric = (side: 'baseline' | 'current', key: 'requestsPerSecond' | 'p99') => median(pairs.map((p) => p[side][key])) ?? 0;
  const comparison = (key: 'requestsPerSecond' | 'p99', change: typeof rpsChange): MetricComparison => ({
    baseline: metric('baseline', key), current: metric('current', key), changePct: change?.changePct ?? null,
  });
  return {
    name: current.name,
    requestsPerSecond: comparison('requestsPerSecond', rpsChange),
    p99: comparison('p99', p99Change),
    errors: { baseline: baseline.errors, current: current.errors },
    regressionPct: regression?.estimatePct ?? null,
    paired,
  };
}

export function comparePaired(scenarios: PairedScenario[], baseUrl: string, startedAt: string): BaselineComparison {
  return { baseUrl, startedAt, scenarios: scenarios.map(comparePairedScenario), missing: [] };
}
