/**
 * What one window of the undici driver, or one k6 run, measured: counts that sum and histograms that merge
 * exactly. Both drivers build a step's measurement by adding these up, so they add them up the same way.
 */
import type { ErrorKind } from '../reply-check.js';
import { LatencyHistogram } from './latency-histogram.js';
import type { LatencyMetric } from './slo.js';

export interface StepFigures {
  /** Requests planned, and sent (a stopped generator sends none of what it planned too late to matter). */
  planned: number;
  sent: number;
  /** Of the sent ones: replies in (any outcome), ok, 429, other errors (timeouts included). */
  settled: number;
  ok: number;
  rateLimited: number;
  errors: number;
  errorsByKind: Partial<Record<ErrorKind, number>>;
  /** Replies (and good ones) completed within the window, by the clock. */
  completed: number;
  good: number;
  latency: LatencyHistogram;
  service: LatencyHistogram;
  ttfp: LatencyHistogram;
  ttfr: LatencyHistogram;
  sendLag: LatencyHistogram;
}

/** Nothing measured yet, with the exceedance counts `plan` asks for. */
export function emptyFigures(plan: { thresholds: Record<LatencyMetric, number[]> & { sendLag?: number[] } }): StepFigures {
  return {
    planned: 0, sent: 0, settled: 0, ok: 0, rateLimited: 0, errors: 0, errorsByKind: {}, completed: 0, good: 0,
    latency: new LatencyHistogram(plan.thresholds.latency),
    service: new LatencyHistogram(),
    ttfp: new LatencyHistogram(plan.thresholds.ttfp),
    ttfr: new LatencyHistogram(plan.thresholds.ttfr),
    sendLag: new LatencyHistogram(plan.thresholds.sendLag ?? []),
  };
}

/** Adds `from` into `into`: counts summed, errors by kind summed, histograms merged. */
export function addFigures(into: StepFigures, from: StepFigures): void {
  for (const key of ['planned', 'sent', 'settled', 'ok', 'rateLimited', 'errors', 'completed', 'good'] as const) into[key] += from[key];
  for (const [k, v] of Object.entries(from.errorsByKind)) into.errorsByKind[k as ErrorKind] = (into.errorsByKind[k as ErrorKind] ?? 0) + v;
  for (const key of ['latency', 'service', 'ttfp', 'ttfr', 'sendLag'] as const) into[key].add(from[key]);
}
