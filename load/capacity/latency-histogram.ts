/**
 * One latency distribution of a step: an HDR histogram (hdr-histogram-js, microsecond resolution, three
 * significant digits) so that windows merge exactly and the tail is kept, plus exact counts of the samples above
 * each SLO threshold, which the step's judgement needs and a percentile cannot give (how many of n exceeded it).
 */
import * as hdr from 'hdr-histogram-js';
import type { Percentiles } from './capacity-result.js';

const US_PER_MS = 1000;

export class LatencyHistogram {
  private readonly histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3, autoResize: true });
  private readonly above: number[];
  private sum = 0;

  /** `thresholdsMs`: the values whose exceedances are counted exactly. */
  constructor(readonly thresholdsMs: readonly number[] = []) {
    this.above = thresholdsMs.map(() => 0);
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  record(ms: number): void {
    const value = Math.max(0, ms);
    this.histogram.recordValue(Math.max(1, Math.round(value * US_PER_MS)));
    this.sum += value;
    for (let i = 0; i < this.thresholdsMs.length; i++) if (value > this.thresholdsMs[i]!) this.above[i]!++;
  }

  /** Whether it counts the samples above `thresholdMs`. */
  counts(thresholdMs: number): boolean {
    return this.thresholdsMs.includes(thresholdMs);
  }

  /** Samples above `thresholdMs` (one of the thresholds it was built with). */
  exceeding(thresholdMs: number): number {
    const i = this.thresholdsMs.indexOf(thresholdMs);
    if (i < 0) throw new Error(`no exceedance count kept for ${thresholdMs} ms`);
    return this.above[i]!;
  }

  /** Adds `other` (built with the same thresholds): histograms merge exactly. */
  add(other: LatencyHistogram): void {
    this.histogram.add(other.histogram);
    this.sum += other.sum;
    for (let i = 0; i < this.above.length; i++) this.above[i]! += other.above[i] ?? 0;
  }

  percentile(p: number): number {
    return this.count === 0 ? 0 : this.histogram.getValueAtPercentile(p) / US_PER_MS;
  }

  summary(): Percentiles {
    const round = (v: number) => Math.round(v * 1000) / 1000;
    return {
      count: this.count,
      p50: round(this.percentile(50)),
      p90: round(this.percentile(90)),
      p99: round(this.percentile(99)),
      p999: round(this.percentile(99.9)),
      max: round(this.count === 0 ? 0 : this.histogram.maxValue / US_PER_MS),
      mean: round(this.count === 0 ? 0 : this.sum / this.count),
    };
  }
}
