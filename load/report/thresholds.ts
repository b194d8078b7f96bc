/**
 * Threshold expressions, the gates of `npm run load`: `[scenario:]metric op value[unit]`, e.g. `p99<250`,
 * `errors==0`, `rps>=500`, `error-rate<0.01` (or `<1%`), `regression<=20%`, `schedule-preview:ttfe-p99<200ms`.
 * Without a scenario an expression applies to every scenario of the run (streaming metrics: to every
 * streaming one).
 */
import type { Scenario } from '../scenarios.js';
import { pct } from '../../src/kit/numbers.js';
import { errorKindsText, type BaselineComparison, type BaselineScenarioComparison, type ScenarioResult, type ThresholdResult } from './load-results.js';
import { CONFIDENCE, judgedEnd, type PairedChange } from './paired.js';

export const OPS = ['<=', '>=', '==', '<', '>'] as const;
export type Op = (typeof OPS)[number];

const LATENCY = ['p50', 'p90', 'p99', 'max', 'mean'] as const;
const STREAMING_PERCENTILES = ['p50', 'p90', 'p99', 'max'] as const;
const STREAMING_METRICS = [...STREAMING_PERCENTILES.map((p) => `ttfe-${p}`), ...STREAMING_PERCENTILES.map((p) => `ttr-${p}`)];

/** Metric → what it measures; the usage text lists these. */
export const METRICS: Record<string, string> = {
  rps: 'completed responses per second',
  requests: 'completed responses',
  errors: 'failed replies plus timeouts and connection errors',
  'error-rate': 'errors / (responses + transport errors); a fraction, or a percentage with %',
  ...Object.fromEntries(LATENCY.map((p) => [p, `latency ${p === 'mean' ? 'mean' : p === 'max' ? 'maximum' : `${p.slice(1)}th percentile`} in ms`])),
  ...Object.fromEntries(STREAMING_PERCENTILES.map((p) => [`ttfe-${p}`, `streaming: time to first event, ${p}, in ms`])),
  ...Object.fromEntries(STREAMING_PERCENTILES.map((p) => [`ttr-${p}`, `streaming: time to result, ${p}, in ms`])),
  regression: 'vs --baseline or --baseline-url: the larger of the req/s drop and the p99 rise, in % (needs %); with --baseline-url '
    + 'judged on its confidence interval (<= fails only when the whole interval is above)',
};

export interface Threshold {
  scenario?: string;
  metric: string;
  op: Op;
  /** In the metric's own unit (error-rate as a fraction, regression in percent). */
  value: number;
  /** As written, without spaces and without the scenario prefix. */
  expression: string;
  origin: ThresholdResult['origin'];
}

export class ThresholdError extends Error {}

/** Used when no --threshold is given: a load run with broken replies fails. */
export const DEFAULT_THRESHOLDS = ['errors==0'] as const;
/** Added to the defaults when a --baseline or --baseline-url is given. */
export const DEFAULT_REGRESSION = 'regression<=20%';
/** Always checked: a scenario that completed no response measured nothing. */
export const BUILTIN_THRESHOLD = 'requests>0';

const PATTERN = /^\s*(?:([a-z0-9][a-z0-9-]*)\s*:)?\s*([a-z0-9][a-z0-9-]*)\s*(<=|>=|==|<|>)\s*(\d+(?:\.\d+)?)\s*(ms|%)?\s*$/i;

export function parseThreshold(text: string, origin: Threshold['origin'] = 'option'): Threshold {
  const m = PATTERN.exec(text);
  if (!m) throw new ThresholdError(`threshold "${text}" is not [scenario:]metric<op>value, e.g. p99<250, errors==0, rps>=500, mix:error-rate<1%, regression<=20%`);
  const [, scenario, rawMetric, op, number, unit] = m;
  const metric = rawMetric!.toLowerCase();
  if (!(metric in METRICS)) throw new ThresholdError(`threshold "${text}": unknown metric "${metric}"; known: ${Object.keys(METRICS).join(', ')}`);
  let value = Number(number);
  const u = unit?.toLowerCase();
  const isLatency = (LATENCY as readonly string[]).includes(metric) || STREAMING_METRICS.includes(metric);
  if (metric === 'regression') {
    if (u !== '%') throw new ThresholdError(`threshold "${text}": regression is a percentage, e.g. regression<=20%`);
  } else if (metric === 'error-rate') {
    if (u === 'ms') throw new ThresholdError(`threshold "${text}": error-rate is a fraction (0.01) or a percentage (1%)`);
    if (u === '%') value /= 100;
    if (value > 1) throw new ThresholdError(`threshold "${text}": error-rate is at most 1 (100%)`);
  } else if (isLatency) {
    if (u === '%') throw new ThresholdError(`threshold "${text}": ${metric} is in milliseconds`);
  } else if (u) {
    throw new ThresholdError(`threshold "${text}": ${metric} takes no unit`);
  }
  return { ...(scenario && { scenario: scenario.toLowerCase() }), metric, op: op as Op, value, expression: `${metric}${op}${number}${u ?? ''}`, origin };
}

export function isStreamingMetric(metric: string): boolean {
  return STREAMING_METRICS.includes(metric);
}

/** What makes a set of thresholds unusable for this run (checked before any traffic), or undefined. */
export function thresholdProblem(thresholds: Threshold[], scenarios: readonly Scenario[], hasBaseline: boolean): string | undefined {
  const names = scenarios.map((s) => s.name);
  const streaming = scenarios.filter((s) => s.requests.some((r) => r.streaming)).map((s) => s.name);
  for (const t of thresholds) {
    const label = `${t.scenario ? `${t.scenario}:` : ''}${t.expression}`;
    if (t.scenario && !names.includes(t.scenario)) return `threshold "${label}" names scenario "${t.scenario}", which this run does not include (${names.join(', ')})`;
    if (isStreamingMetric(t.metric)) {
      if (t.scenario && !streaming.includes(t.scenario)) return `threshold "${label}": ${t.scenario} has no streaming request`;
      if (!t.scenario && streaming.length === 0) return `threshold "${label}": none of the scenarios run (${names.join(', ')}) has a streaming request`;
    }
    if (t.metric === 'regression' && !hasBaseline) return `threshold "${label}" compares with a baseline: give --baseline-url <url> (loaded in this run) or --baseline <load.json>`;
  }
  return undefined;
}

export function holds(actual: number, op: Op, value: number): boolean {
  switch (op) {
    case '<': return actual < value;
    case '<=': return actual <= value;
    case '>': return actual > value;
    case '>=': return actual >= value;
    case '==': return actual === value;
  }
}

const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(1)}`;
const changeText = (c: PairedChange) => `${signed(c.changePct)} % [${signed(c.lowPct)}, ${signed(c.highPct)}], noise ${c.noisePct.toFixed(1)} %/pair`;

/**
 * `regression +31.2 % (95 % interval +24.0 … +38.4 %, 5 pairs; req/s −24.1 % [−29.0, −18.9], noise 4.1 %/pair;
 * p99 +31.2 % [...])`: the paired comparison in one line, for the console, the notes and load.md.
 */
export function intervalText(c: BaselineScenarioComparison): string {
  const i = c.paired;
  if (!i) return `req/s ${pct(c.requestsPerSecond.changePct)}, p99 ${pct(c.p99.changePct)} vs the baseline`;
  const r = i.regression;
  const head = r
    ? `regression ${signed(r.estimatePct)} % (${Math.round(CONFIDENCE * 100)} % interval ${signed(r.lowPct)} … ${signed(r.highPct)} %, ${i.pairs.length} pairs`
    : `regression not measured (${i.pairs.length} pairs`;
  return `${head}; req/s ${i.requestsPerSecond ? changeText(i.requestsPerSecond) : 'not measured'}; p99 ${i.p99 ? changeText(i.p99) : 'not measured'})`;
}

/** The metric's value on one scenario, or a note on why there is none. */
function measure(t: Threshold, s: ScenarioResult, baseline: BaselineComparison | undefined): { actual: number | null; note?: string } {
  switch (t.metric) {
    case 'rps': return { actual: s.requestsPerSecond };
    case 'requests': return { actual: s.requests };
    case 'errors': return { actual: s.errors, ...(s.errors > 0 && { note: errorKindsText(s) }) };
    case 'error-rate': return { actual: s.errorRate, ...(s.errors > 0 && { note: errorKindsText(s) }) };
    case 'regression': {
      const c = baseline?.scenarios.find((b) => b.name === s.name);
      if (!c) return { actual: null, note: 'the baseline has no such scenario' };
      const note = `req/s ${pct(c.requestsPerSecond.changePct)}, p99 ${pct(c.p99.changePct)} vs the baseline`;
      if (c.regressionPct === null) return { actual: null, note: `${note}: nothing to compare` };
      const r = c.paired?.regression;
      if (r) return { actual: judgedEnd(r, t.op), note: `${intervalText(c)}; judged on the interval's ${t.op === '==' ? 'estimate' : t.op.startsWith('<') ? 'low end' : 'high end'}` };
      return { actual: c.regressionPct, note };
    }
  }
  if (isStreamingMetric(t.metric)) {
    const [kind, p] = t.metric.split('-') as ['ttfe' | 'ttr', 'p50' | 'p90' | 'p99' | 'max'];
    const summary = kind === 'ttfe' ? s.streaming?.timeToFirstEventMs : s.streaming?.timeToResultMs;
    if (!summary || summary.samples === 0) return { actual: null, note: `no streaming response had ${kind === 'ttfe' ? 'an event' : 'a result'}` };
    return { actual: summary[p] };
  }
  const latency = s.latencyMs[t.metric as (typeof LATENCY)[number]];
  if (s.latencyMs.samples === 0) return { actual: null, note: 'no response completed' };
  return { actual: latency };
}

/** Every threshold on every scenario it applies to, in the order given, scenario by scenario. */
export function evaluateThresholds(thresholds: Threshold[], scenarios: ScenarioResult[], baseline?: BaselineComparison): ThresholdResult[] {
  const results: ThresholdResult[] = [];
  for (const t of thresholds) {
    for (const s of scenarios) {
      if (t.scenario && t.scenario !== s.name) continue;
      if (!t.scenario && isStreamingMetric(t.metric) && !s.streaming) continue;
      const { actual, note } = measure(t, s, baseline);
      results.push({
        scenario: s.name,
        expression: t.expression,
        metric: t.metric,
        origin: t.origin,
        actual,
        ok: actual !== null && holds(actual, t.op, t.value),
        ...(note && { note }),
      });
    }
  }
  return results;
}
