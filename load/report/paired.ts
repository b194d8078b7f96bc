/**
 * The statistics of the paired comparison (`--baseline-url`): the baseline and the candidate are loaded in
 * pairs of rounds (together, or one right after the other), and the regression is judged from the pairs
 * against the noise the same run measured.
 *
 * Per pair i, the change of a metric is the log of the ratio candidate / baseline (a ratio because a
 * slowdown is relative; a log because ratios are skewed and a mean of logs is the geometric mean ratio).
 * Both rounds of a pair ran during the same seconds (or seconds apart), so a neighbour that slows the
 * machine for a while slows both: the ratio cancels what the rounds have in common, and the spread of the
 * ratios over the pairs is the noise left. The interval is Student's t interval of the mean log ratio
 * (n − 1 degrees of freedom), turned back into percent. A bootstrap of 3 to 9 pairs would give intervals too
 * narrow (it cannot see a spread wider than the few values it resamples); the t interval widens as n falls.
 */

/** Two-sided confidence of each interval. */
export const CONFIDENCE = 0.95;

/** Student's t, 0.975 quantile, for 1 to 30 degrees of freedom (any statistics table). */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export function tQuantile975(df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new RangeError(`degrees of freedom must be a whole number >= 1, not ${df}`);
  return T_975[Math.min(df, T_975.length) - 1]!;
}

/** The mean of `xs` and its t interval; `sd` is the sample standard deviation (the noise). Needs 2 values or more. */
export function meanInterval(xs: readonly number[]): { mean: number; low: number; high: number; sd: number } {
  const n = xs.length;
  if (n < 2) throw new RangeError('an interval needs at least 2 values');
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const half = tQuantile975(n - 1) * (sd / Math.sqrt(n));
  return { mean, low: mean - half, high: mean + half, sd };
}

/** A change in percent, with its interval and the noise of one pair, rounded to 0.1. */
export interface PairedChange {
  /** The geometric mean of the per-pair ratios, as a change: (ratio − 1) × 100. */
  changePct: number;
  lowPct: number;
  highPct: number;
  /** The standard deviation of one pair's log ratio, as a percentage: how far one pair alone strays. */
  noisePct: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const asPct = (logRatio: number) => (Math.exp(logRatio) - 1) * 100;

/** The change from `baseline[i]` to `current[i]` over the pairs whose values are both positive; null with fewer than 2 such. */
export function pairedChange(baseline: readonly number[], current: readonly number[]): PairedChange | null {
  const logs: number[] = [];
  for (let i = 0; i < Math.min(baseline.length, current.length); i++) {
    const [b, c] = [baseline[i]!, current[i]!];
    if (b > 0 && c > 0) logs.push(Math.log(c / b));
  }
  if (logs.length < 2) return null;
  const m = meanInterval(logs);
  return { changePct: round1(asPct(m.mean)), lowPct: round1(asPct(m.low)), highPct: round1(asPct(m.high)), noisePct: round1(m.sd * 100) };
}

/** The regression as an interval: an estimate and the smallest and largest regression the noise allows. */
export interface RegressionInterval {
  estimatePct: number;
  lowPct: number;
  highPct: number;
}

/**
 * The regression, the larger of the throughput drop and the p99 rise, with its interval. A drop is a
 * negative change of req/s, so its interval is the change's, negated and reversed. If the drop lies in
 * [a1, a2] and the rise in [b1, b2], the larger of the two lies in [max(a1, b1), max(a2, b2)]: each
 * interval covers at 95 %, so this one covers at 90 % at least. Null when neither could be measured.
 */
export function regressionInterval(rps: PairedChange | null, p99: PairedChange | null): RegressionInterval | null {
  const parts: RegressionInterval[] = [];
  if (rps) parts.push({ estimatePct: -rps.changePct, lowPct: -rps.highPct, highPct: -rps.lowPct });
  if (p99) parts.push({ estimatePct: p99.changePct, lowPct: p99.lowPct, highPct: p99.highPct });
  if (parts.length === 0) return null;
  return {
    estimatePct: Math.max(...parts.map((p) => p.estimatePct)),
    lowPct: Math.max(...parts.map((p) => p.lowPct)),
    highPct: Math.max(...parts.map((p) => p.highPct)),
  };
}

/**
 * Which end of the interval a regression threshold is judged on: the candidate has the benefit of the
 * doubt, so `regression<=20%` fails only when even the interval's low end exceeds 20 %, i.e. the whole
 * interval lies beyond the tolerance; `regression>=X` fails only when even its high end is below X.
 */
export function judgedEnd(r: RegressionInterval, op: '<' | '<=' | '>' | '>=' | '=='): number {
  if (op === '<' || op === '<=') return r.lowPct;
  if (op === '>' || op === '>=') return r.highPct;
  return r.estimatePct;
}
