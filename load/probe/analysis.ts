/**
 * From measurements to findings, with no I/O: the sustained limit from the throttled steps, the burst from
 * idle-key volleys, the limiter's shape, and the pass/fail rule of the `--expect-*` gates.
 */
import { is2xx } from './client.js';
import { classifyStep, successRunShare, type StepClass } from './stepper.js';

export interface StepSummary {
  offered: number;
  accepted2xx: number;
  throttled429: number;
  other: number;
  notSent: number;
  sent: number;
  scheduled: number;
  durationS: number;
}

export interface SustainedEstimate {
  /** Accepted 2xx per second once the offered rate exceeds the limit; undefined when no step was throttled. */
  ratePerSecond?: number;
  /** The steps it was computed from (offered rates). */
  fromSteps: number[];
}

export const throttledShare = (s: Pick<StepSummary, 'throttled429' | 'sent'>) => (s.sent ? s.throttled429 / s.sent : 0);
export const acceptedRate = (s: Pick<StepSummary, 'accepted2xx' | 'durationS'>) => s.accepted2xx / s.durationS;

/**
 * Every step starts from an emptied bucket, so once the offered rate exceeds the limit a step gets only
 * the refill: its accepted rate is the sustained limit. Steps where at least 10 % were refused are
 * clearly over it; when none is, any throttled step counts.
 */
export function sustainedFromSteps(steps: StepSummary[]): SustainedEstimate {
  const throttled = steps.filter((s) => classifyStep(s) === 'throttled');
  const clear = throttled.filter((s) => throttledShare(s) >= 0.1);
  const used = clear.length ? clear : throttled;
  if (used.length === 0) return { fromSteps: [] };
  const accepted = used.reduce((a, s) => a + s.accepted2xx, 0);
  const duration = used.reduce((a, s) => a + s.durationS, 0);
  return { ratePerSecond: accepted / duration, fromSteps: used.map((s) => s.offered) };
}

export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export type LimiterShape = 'token-bucket' | 'fixed-window' | 'unknown';

/** One request of a step: when it was sent (ms) and how it was answered. */
export interface TimedStatus { t: number; status: number }

export interface ShapeFinding {
  shape: LimiterShape;
  /** Offered rate of the step analysed. */
  offered?: number;
  /**
   * How far each model's running count of successes is from the observed one, on average, in requests
   * (smaller fits better), replaying the actual send times.
   */
  distance?: { tokenBucket: number; fixedWindow: number };
  /** Share of successes directly following a success (send order): near 0 a trickle, near 1 batches. */
  successRunShare?: number;
  why: string;
}

const decided = (s: number) => is2xx(s) || s === 429;

/**
 * A token bucket (capacity `burst`, refill `rate`/s) holding `tokens` at `startMs`, fed the requests at
 * their send times: which would it serve?
 */
export function predictTokenBucket(times: number[], rate: number, burst: number, startMs: number, tokens = 0): boolean[] {
  let at = startMs;
  return times.map((t) => {
    tokens = Math.min(burst, tokens + (Math.max(0, t - at) / 1000) * rate);
    at = Math.max(at, t);
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  });
}

/**
 * A fixed window (`quota` per `windowMs`, windows starting at `phaseMs` + k * windowMs) whose current window
 * was used up at `startMs`: which requests would it serve?
 */
export function predictFixedWindow(times: number[], quota: number, windowMs: number, phaseMs: number, startMs: number): boolean[] {
  const first = Math.floor((startMs - phaseMs) / windowMs);
  const used = new Map<number, number>([[first, quota]]);
  return times.map((t) => {
    const w = Math.floor((t - phaseMs) / windowMs);
    const n = used.get(w) ?? 0;
    if (n >= quota) return false;
    used.set(w, n + 1);
    return true;
  });
}

/** Mean distance between the predicted and the observed running count of successes. */
function distanceOf(predicted: boolean[], observed: boolean[]): number {
  let p = 0;
  let o = 0;
  let sum = 0;
  observed.forEach((ok, i) => {
    if (predicted[i]) p++;
    if (ok) o++;
    sum += Math.abs(p - o);
  });
  return observed.length ? sum / observed.length : 0;
}

/**
 * Token bucket or fixed window? A step offered well over the limit, from an emptied bucket, is replayed
 * through both models with the measured limits: a token bucket serves a trickle at the refill rate (its
 * running count of successes is a ramp); a fixed window that shows burst b and rate r has a quota of b per
 * b/r s and serves each quota in a batch at a window edge (a staircase). Each model gets its best start
 * (tokens left in the bucket; the window phase), then the one whose running count stays clearly closer to
 * the observed one names the shape. Counts, not request-by-request matches: a bucket a fraction of a token
 * off, or a server that answered a few requests late, shifts successes by a slot but not the ramp.
 * Replaying the actual send times keeps the probe's own hiccups (requests sent in a bunch after a pause)
 * from looking like batches. With a small burst the staircase is the ramp, and the answer is "unknown".
 */
export function limiterShape(step: { offered: number; requests: TimedStatus[]; startMs?: number } | undefined, limits: { ratePerSecond?: number; burst?: number }): ShapeFinding {
  if (!step) return { shape: 'unknown', why: 'no step far enough over the limit to tell' };
  const { ratePerSecond: rate, burst } = limits;
  if (rate === undefined || burst === undefined || !(rate > 0) || !(burst >= 1)) return { shape: 'unknown', offered: step.offered, why: 'no sustained rate and burst to model' };
  const requests = step.requests.filter((r) => decided(r.status));
  const statuses = requests.map((r) => r.status);
  const observed = statuses.map(is2xx);
  const refused = statuses.filter((s) => s === 429).length;
  const runs = successRunShare(statuses);
  const base = { offered: step.offered, ...(runs !== undefined && { successRunShare: Number(runs.toFixed(3)) }) };
  if (requests.length < 10 || refused / requests.length < 0.4) {
    return { shape: 'unknown', ...base, why: `${requests.length} answers, ${refused} refused at ${fmt(step.offered)} req/s: not far enough over the limit to tell` };
  }
  const times = requests.map((r) => r.t);
  // The bucket was emptied when the step began (by default: one interval before the first request).
  const start = step.startMs ?? times[0]! - 1000 / step.offered;
  const tokenBucket = Math.min(...[0, 0.25, 0.5, 0.75].map((t0) => distanceOf(predictTokenBucket(times, rate, burst, start, t0), observed)));
  const quota = Math.max(1, Math.round(burst));
  const windowMs = (quota / rate) * 1000;
  const fixedWindow = Math.min(...Array.from({ length: 40 }, (_, j) => distanceOf(predictFixedWindow(times, quota, windowMs, start + (j * windowMs) / 40, start), observed)));
  const found = { ...base, distance: { tokenBucket: Number(tokenBucket.toFixed(2)), fixedWindow: Number(fixedWindow.toFixed(2)) } };
  const said = `the running count of successes at ${fmt(step.offered)} req/s is ${fmt(tokenBucket)} requests off a token bucket's on average, ${fmt(fixedWindow)} off a fixed window's of ${quota} per ${fmt(windowMs / 1000)} s`;
  const margin = Math.max(1, 0.1 * quota);
  if (fixedWindow - tokenBucket >= margin) return { shape: 'token-bucket', ...found, why: `successes trickle at the refill rate: ${said}` };
  if (tokenBucket - fixedWindow >= margin) return { shape: 'fixed-window', ...found, why: `successes come in batches at window edges: ${said}` };
  return { shape: 'unknown', ...found, why: `neither model fits clearly: ${said}` };
}

export type VerdictStatus = 'pass' | 'fail' | 'not-testable' | 'not-requested';

export interface Verdict {
  id: string;
  name: string;
  status: VerdictStatus;
  message: string;
}

/** The probe's verdicts, by id (also the `violates` ids of the rate-limit mutants). */
export const VERDICTS = {
  'retry-after-present': 'a 429 carries Retry-After (delay-seconds or an HTTP-date)',
  'retry-after-honest': 'a retry after Retry-After is served',
  'isolation-sibling': 'throttling one key leaves a sibling key of the same workspace untouched',
  'isolation-other-workspace': 'throttling one key leaves a key of another workspace untouched',
  'expect-rate': 'the sustained limit is the expected one (--expect-rate, within --tolerance)',
  'expect-burst': 'the burst is the expected one (--expect-burst, within --tolerance)',
} as const;
export type VerdictId = keyof typeof VERDICTS;

export function verdict(id: VerdictId, status: VerdictStatus, message: string): Verdict {
  return { id, name: VERDICTS[id], status, message };
}

/** An `--expect-*` gate: the measured value within `tolerancePct` % of the expected one. */
export function expectGate(id: 'expect-rate' | 'expect-burst', expected: number | undefined, measured: number | undefined, tolerancePct: number, unit: string, missing: string): Verdict {
  if (expected === undefined) return verdict(id, 'not-requested', `not requested (--${id} not given)`);
  if (measured === undefined) return verdict(id, 'fail', `expected ${fmt(expected)} ${unit}, measured none: ${missing}`);
  const off = ((measured - expected) / expected) * 100;
  const ok = Math.abs(off) <= tolerancePct + 1e-9;
  return verdict(id, ok ? 'pass' : 'fail', `expected ${fmt(expected)} ${unit}, measured ${fmt(measured)} (${off >= 0 ? '+' : ''}${off.toFixed(1)} %, tolerance ${tolerancePct} %)`);
}

/** Numbers in messages: 3 significant digits, no exponent. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return String(Math.round(n));
  return String(Number(n.toPrecision(3)));
}

export type { StepClass };
