/**
 * The SLO a capacity step is judged on: `p99<=75ms,errors<=1%`; for streaming tools also `ttfp-p99<=` (time to
 * the first progress notification) and `ttfr-p99<=` (time to the final result), all from the planned send time.
 * A term is judged as a share, never as one percentile's point value: "p99 <= 75 ms" says at most 1 % of requests
 * take longer than 75 ms, so a step counts the requests above 75 ms and decides only when the 95 % interval of
 * that share lies wholly on one side of 1 % (a p99 from 40 samples decides nothing: the step is uncertain and
 * its window grows).
 */
import { readFileSync } from 'node:fs';
import type { TermJudgement } from './capacity-result.js';

export type LatencyMetric = 'latency' | 'ttfp' | 'ttfr';

export type SloTerm =
  | { kind: 'latency'; metric: LatencyMetric; quantile: number; thresholdMs: number; text: string }
  | { kind: 'errors'; maxShare: number; text: string };

export interface Slo {
  text: string;
  terms: SloTerm[];
}

export const DEFAULT_SLO = 'p99<=75ms,errors<=1%';

const UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };

/** Parses `p99<=75ms,errors<=1%`; throws an Error that says what is wrong with which term. */
export function parseSlo(text: string): Slo {
  const terms: SloTerm[] = [];
  const parts = text.split(',').map((t) => t.trim()).filter((t) => t !== '');
  if (parts.length === 0) throw new Error(`SLO "${text}" has no terms (e.g. ${DEFAULT_SLO})`);
  for (const part of parts) {
    const latency = /^(?:(ttfp|ttfr)-)?p(\d{1,3}(?:\.\d+)?)\s*<=\s*(\d+(?:\.\d+)?)\s*(us|ms|s)$/i.exec(part);
    const errors = /^errors\s*<=\s*(\d+(?:\.\d+)?)\s*%$/i.exec(part);
    if (latency) {
      const quantile = Number((Number(latency[2]) / 100).toFixed(8));
      if (!(quantile > 0 && quantile < 1)) throw new Error(`SLO term "${part}": the percentile must be above 0 and below 100`);
      const thresholdMs = Number(latency[3]) * UNITS[latency[4]!.toLowerCase()]!;
      if (!(thresholdMs > 0)) throw new Error(`SLO term "${part}": the threshold must be above 0`);
      terms.push({ kind: 'latency', metric: (latency[1]?.toLowerCase() as LatencyMetric | undefined) ?? 'latency', quantile, thresholdMs, text: part });
    } else if (errors) {
      const maxShare = Number(errors[1]) / 100;
      if (maxShare >= 1) throw new Error(`SLO term "${part}": an error share must be below 100 %`);
      terms.push({ kind: 'errors', maxShare, text: part });
    } else {
      throw new Error(`SLO term "${part}" is not one of pNN<=T, ttfp-pNN<=T, ttfr-pNN<=T (T in us, ms or s) or errors<=N%`);
    }
  }
  const metrics = terms.map((t) => (t.kind === 'errors' ? 'errors' : `${t.metric}-${t.quantile}`));
  const twice = metrics.find((m, i) => metrics.indexOf(m) !== i);
  if (twice) throw new Error(`SLO "${text}" states ${twice.replace(/-0\./, '-p').replace('latency-p', 'p')} twice`);
  return { text: parts.join(','), terms };
}

/**
 * The SLOs of a file, per scenario: `{"default": "p99<=75ms,errors<=1%", "schedule-preview": "ttfr-p99<=2s,errors<=1%"}`.
 * Returns the SLO of each named scenario (the default where a scenario has none).
 */
export function readSloFile(path: string, scenarios: readonly string[], fallback: string): Map<string, Slo> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`--slo-file ${path}: ${(err as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`--slo-file ${path}: an object of scenario name -> SLO text`);
  const entries = raw as Record<string, unknown>;
  for (const [name, value] of Object.entries(entries)) {
    if (typeof value !== 'string') throw new Error(`--slo-file ${path}: "${name}" must be an SLO text such as "${DEFAULT_SLO}"`);
    if (name !== 'default' && !scenarios.includes(name)) throw new Error(`--slo-file ${path}: "${name}" is not a chosen scenario (${scenarios.join(', ')}) nor "default"`);
  }
  const byScenario = new Map<string, Slo>();
  for (const s of scenarios) {
    const text = (entries[s] as string | undefined) ?? (entries.default as string | undefined) ?? fallback;
    try {
      byScenario.set(s, parseSlo(text));
    } catch (err) {
      throw new Error(`--slo-file ${path}, ${s}: ${(err as Error).message}`);
    }
  }
  return byScenario;
}

/** Terms a scenario cannot be judged on: TTFP/TTFR of a tool that does not stream. */
export function termsProblem(slo: Slo, scenario: string, streaming: boolean): string | undefined {
  const streamingOnly = slo.terms.filter((t) => t.kind === 'latency' && t.metric !== 'latency');
  if (!streaming && streamingOnly.length > 0) return `${scenario} does not stream: ${streamingOnly.map((t) => t.text).join(', ')} cannot be judged on it`;
  return undefined;
}

/** The thresholds whose exceedances a step must count, per metric. */
export function thresholdsOf(slo: Slo, metric: LatencyMetric): number[] {
  return slo.terms.flatMap((t) => (t.kind === 'latency' && t.metric === metric ? [t.thresholdMs] : []));
}

/** z for a two-sided 95 % interval. */
const Z = 1.959964;

/** Wilson's score interval of a share k/n (95 %): honest at k = 0 and for small n, unlike the normal approximation. */
export function wilson(k: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const p = k / n;
  const z2 = Z * Z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * The fewest samples that can show a share of at most `allowed` when none exceeds: with 0 of n, Wilson's upper
 * bound is z²/(n+z²), so n >= z²(1-allowed)/allowed (384 for a p99, 3,838 for a p99.9, 380 for errors<=1%).
 */
export function samplesToDecide(allowed: number): number {
  if (allowed <= 0) return 1;
  return Math.ceil((Z * Z * (1 - allowed)) / allowed);
}

/** The fewest samples the whole SLO needs for a pass to be possible. */
export function minSamples(slo: Slo): number {
  return Math.max(...slo.terms.map((t) => samplesToDecide(t.kind === 'errors' ? t.maxShare : 1 - t.quantile)));
}

/**
 * One term's verdict from k of n samples beyond it: pass when the interval's top is at or under the allowed
 * share, fail when its bottom is above it, otherwise uncertain. An allowed share of 0 (errors<=0%) fails on one.
 */
export function judgeShare(text: string, k: number, n: number, allowed: number, measured: number, threshold: number): TermJudgement {
  const interval = wilson(k, n);
  let verdict: TermJudgement['verdict'];
  if (allowed === 0) verdict = k > 0 ? 'fail' : n > 0 ? 'pass' : 'uncertain';
  else if (n > 0 && interval[1] <= allowed) verdict = 'pass';
  else if (n > 0 && interval[0] > allowed) verdict = 'fail';
  else verdict = 'uncertain';
  const r = (v: number) => Math.round(v * 1e5) / 1e5;
  return { term: text, measured, threshold, exceeding: k, samples: n, allowedShare: allowed, interval: [r(interval[0]), r(interval[1])], verdict };
}
