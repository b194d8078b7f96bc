/**
 * load.json, the contract of `npm run load` (reports/load.schema.json describes it), and the small
 * aggregations that turn raw measurements into it: HDR histograms (µs) into millisecond summaries.
 */
import type { RecordableHistogram } from 'node:perf_hooks';
import { ERROR_KINDS, type ErrorKind } from '../reply-check.js';
import type { PairedChange, RegressionInterval } from './paired.js';

export const LOAD_SCHEMA_VERSION = 1;

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** Responses the percentiles are computed from. */
  samples: number;
}

export interface PercentileSummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface ThroughputSecond {
  /** Seconds since the scenario started: the bucket holds what completed in [second, second + 1). */
  second: number;
  responses: number;
  errors: number;
}

export interface StreamingResult {
  /** Responses to streaming requests (checked for progress and a final result). */
  responses: number;
  /** Progress notifications per streaming response. */
  progressEvents: { min: number; mean: number; max: number };
  /** From the request being written to the first SSE event (text/event-stream responses with one event or more). */
  timeToFirstEventMs: PercentileSummary & { samples: number };
  /** From the request being written to the event carrying the final JSON-RPC result. */
  timeToResultMs: PercentileSummary & { samples: number };
}

export interface RequestBreakdown {
  /** The scenario request's label (`tools/list`, `blocks.list`...). */
  name: string;
  responses: number;
  errors: number;
}

export interface ScenarioResult {
  name: string;
  description: string;
  engine: 'autocannon';
  startedAt: string;
  /**
   * The window requestsPerSecond is computed over, in seconds: from the start until autocannon stopped its
   * connections, or until the last completion when the request cap ended the run earlier.
   */
  durationS: number;
  /** Completed responses (any status) per second of that window. */
  requestsPerSecond: number;
  /** Completed responses, any status. */
  requests: number;
  /** Requests written to the wire (autocannon's count), including ones cut off by the end of the run. */
  requestsSent: number;
  /** Every completed response (as autocannon's own histogram: errors too), measured per response at microsecond resolution. */
  latencyMs: LatencySummary;
  /** The same latencies at more percentiles, for the percentile plot: [percentile, ms]. */
  latencyDistribution: Array<[number, number]>;
  /** autocannon's own histogram (whole milliseconds), as a cross-check. */
  autocannonLatencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Failed responses plus transport errors (timeouts, connection errors): the sum of errorsByKind. */
  errors: number;
  errorsByKind: Record<ErrorKind, number>;
  /** errors / (responses + transport errors). */
  errorRate: number;
  statusCodes: Record<string, number>;
  byRequest: RequestBreakdown[];
  throughput: ThroughputSecond[];
  streaming?: StreamingResult;
  /** With --rounds: each round's throughput, p99 and errors; the result is the median round's (load/report/rounds.ts). */
  rounds?: { requestsPerSecond: number; p99: number; errors: number }[];
}

export interface ThresholdResult {
  /** The scenario the expression was evaluated on. */
  scenario: string;
  /** The expression as evaluated, without the scenario prefix, e.g. `p99<250`. */
  expression: string;
  metric: string;
  /** Whether the user gave it (`option`), it is a default (`default`), or always applies (`builtin`). */
  origin: 'option' | 'default' | 'builtin';
  /** The measured value, or null when it could not be measured (see `note`). */
  actual: number | null;
  ok: boolean;
  note?: string;
}

export interface MetricComparison {
  baseline: number;
  current: number;
  /** (current − baseline) / baseline × 100; null when the baseline is 0. */
  changePct: number | null;
}

export interface BaselineScenarioComparison {
  name: string;
  requestsPerSecond: MetricComparison;
  p99: MetricComparison;
  errors: { baseline: number; current: number };
  /** The larger of the throughput drop and the p99 rise, in percent (negative: better than the baseline). */
  regressionPct: number | null;
  /** With --baseline-url: the pairs of rounds and the intervals the regression is judged on (load/report/paired.ts). */
  paired?: PairedComparison;
}

export type Pairing = 'together' | 'alternate';
export const PAIRINGS: readonly Pairing[] = ['together', 'alternate'];

/** One pair of rounds: the baseline's and the candidate's, loaded one right after the other. */
export interface RoundPair {
  /**
   * How the pair ran: both rounds at once (--pairing together), or one after the other, pairs alternating
   * which goes first (AB, BA, AB...) so that a drift over the run weighs on both sides alike.
   */
  order: 'together' | 'baseline-first' | 'current-first';
  baseline: { requestsPerSecond: number; p99: number };
  current: { requestsPerSecond: number; p99: number };
}

export interface PairedComparison {
  /** How the intervals were computed, in one sentence. */
  method: string;
  /** Two-sided confidence of each metric's interval. */
  confidence: number;
  pairs: RoundPair[];
  /** The change of req/s over the pairs (negative: fewer), null when no pair has two positive values. */
  requestsPerSecond: PairedChange | null;
  p99: PairedChange | null;
  /** The larger of the req/s drop and the p99 rise: estimate and interval. Null when neither was measured. */
  regression: RegressionInterval | null;
}

export interface BaselineComparison {
  /** The --baseline file (a stored load.json); absent with --baseline-url. */
  file?: string;
  /** The --baseline-url server, loaded in this run in pairs of rounds with the target. */
  baseUrl?: string;
  /** When the baseline run started (with --baseline-url: this run). */
  startedAt: string;
  scenarios: BaselineScenarioComparison[];
  /** Scenarios of this run the baseline does not have. */
  missing: string[];
}

export interface LoadSettings {
  scenarios: string[];
  durationS: number;
  connections: number;
  /** Fixed overall arrival rate (autocannon's overallRate), or null for a closed loop. */
  rate: number | null;
  maxRequests: number;
  /** Rounds per scenario (--rounds); absent in reports written before it. */
  rounds?: number;
  timeoutS: number;
  /** The threshold expressions in force (the options, or the defaults). */
  thresholds: string[];
  baseline: string | null;
  /** The --baseline-url server, or null; absent in reports written before it. */
  baselineUrl?: string | null;
  /** With --baseline-url: how each pair's two rounds ran (--pairing). */
  pairing?: Pairing;
  /** How time to first event and time to result are measured. */
  streamingTiming: string;
}

export interface LoadReport {
  schemaVersion: typeof LOAD_SCHEMA_VERSION;
  tool: { name: string; version: string };
  /** Never a key. */
  target: { kind: string; baseUrl: string; description: string };
  machine: { cpus: number; model: string; node: string; platform: string; arch: string };
  settings: LoadSettings;
  startedAt: string;
  durationMs: number;
  scenarios: ScenarioResult[];
  thresholds: ThresholdResult[];
  baseline?: BaselineComparison;
  verdict: string;
  exitCode: 0 | 1;
}

/** A load run's one word, as its reports and the folder's page headline it. */
export function loadWord(load: Pick<LoadReport, 'exitCode'>): 'PASS' | 'FAIL' {
  return load.exitCode === 0 ? 'PASS' : 'FAIL';
}

/** Histograms here record microseconds, from 1 µs to 2 minutes, 3 significant figures. */
export const HISTOGRAM_RANGE = { lowest: 1, highest: 120_000_000, figures: 3 } as const;

const ms = (us: number) => Math.round(us) / 1000;

export function percentileSummary(h: RecordableHistogram): PercentileSummary & { samples: number } {
  if (h.count === 0) return { p50: 0, p90: 0, p99: 0, max: 0, samples: 0 };
  return { p50: ms(h.percentile(50)), p90: ms(h.percentile(90)), p99: ms(h.percentile(99)), max: ms(h.max), samples: h.count };
}

export function latencySummary(h: RecordableHistogram): LatencySummary {
  const p = percentileSummary(h);
  return { p50: p.p50, p90: p.p90, p99: p.p99, max: p.max, mean: h.count === 0 ? 0 : ms(h.mean), samples: p.samples };
}

/** Percentiles drawn in the latency plot. */
export const PLOT_PERCENTILES = [0, 50, 75, 90, 95, 99, 99.9, 100] as const;

export function latencyDistribution(h: RecordableHistogram): Array<[number, number]> {
  if (h.count === 0) return [];
  return PLOT_PERCENTILES.map((p) => [p, ms(p === 0 ? h.min : p === 100 ? h.max : h.percentile(p))]);
}

export function emptyErrorsByKind(): Record<ErrorKind, number> {
  return Object.fromEntries(ERROR_KINDS.map((k) => [k, 0])) as Record<ErrorKind, number>;
}

/** The kinds that occurred, most frequent first. */
export function errorKindsSeen(s: ScenarioResult): Array<[ErrorKind, number]> {
  return (Object.entries(s.errorsByKind) as Array<[ErrorKind, number]>).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
}

/** `http-5xx 3, wrong-id 1`, or `none`. */
export function errorKindsText(s: ScenarioResult): string {
  const seen = errorKindsSeen(s);
  return seen.length === 0 ? 'none' : seen.map(([k, n]) => `${k} ${n}`).join(', ');
}
