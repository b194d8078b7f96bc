/**
 * A step's verdict, in the order that keeps a number honest: 429s first (a rate limit is never a capacity),
 * then the generator (a step it could not offer as planned says nothing about the service), then the SLO's
 * terms each judged as a share with its 95 % interval, then whether completions kept up with arrivals (a queue
 * that grows through the window breaks any SLO given time, even while its early samples look fine).
 */
import type { StepVerdict, TermJudgement } from './capacity-result.js';
import { BIN_MS, type Decision, type StepMeasurement } from './open-model-driver.js';
import { LatencyHistogram } from './latency-histogram.js';
import { judgeShare, type Slo } from './slo.js';

export interface GeneratorBounds {
  /** Send lag (at `lagQuantile`) beyond which the generator did not send as planned, ms. */
  lagBoundMs: number;
  /**
   * The percentile of send lag that is judged: the SLO's own (its highest latency percentile). Lag distorts a
   * p90 through the lag of the slowest tenth of the sends, not through its p99: on a busy machine one pause
   * holds 1 % of the sends, which decides nothing about a p90.
   */
  lagQuantile: number;
  /** Event-loop utilization at or beyond which the generator was saturated. */
  eventLoopUtilization: number;
}

/**
 * Default lag bound: a quarter of the tightest latency threshold, within [10, 100] ms. Lag adds to every
 * planned-send latency, so a quarter of the threshold is the most it may take of it; and below 10 ms the p99 of
 * lag is one garbage collection (a 10 ms pause at 1,000 req/s delays 1 % of the sends), not a generator that
 * cannot keep up.
 */
export function defaultGeneratorBounds(slo: Slo): GeneratorBounds {
  const tightest = Math.min(...slo.terms.flatMap((t) => (t.kind === 'latency' ? [t.thresholdMs] : [])), 400);
  const quantiles = slo.terms.flatMap((t) => (t.kind === 'latency' ? [t.quantile] : []));
  return { lagBoundMs: Math.min(100, Math.max(10, tightest / 4)), lagQuantile: quantiles.length > 0 ? Math.max(...quantiles) : 0.99, eventLoopUtilization: 0.95 };
}

/** Late sends fewer than this never make a step invalid: one hiccup is not a generator that cannot keep up. */
const LATE_SENDS = 3;

/** Share of the window's sends that may be missing from its completions before the step is falling behind. */
const BACKLOG_SHARE = 0.05;
const BACKLOG_MIN = 10;

export interface StepJudgement {
  decision: Decision;
  verdict: StepVerdict;
  reason: string;
  terms: TermJudgement[];
}

const pct = (v: number) => `${(v * 100).toFixed(v < 0.01 ? 2 : 1)} %`;
const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;

function terms(m: StepMeasurement, slo: Slo): TermJudgement[] {
  return slo.terms.map((t) => {
    if (t.kind === 'errors') {
      const n = m.settled - m.rateLimited + m.pending;
      return judgeShare(t.text, m.errors, n, t.maxShare, n === 0 ? 0 : m.errors / n, t.maxShare);
    }
    const h = t.metric === 'ttfp' ? m.ttfp : t.metric === 'ttfr' ? m.ttfr : m.latency;
    return judgeShare(t.text, h.exceeding(t.thresholdMs), h.count, 1 - t.quantile, h.percentile(t.quantile * 100), t.thresholdMs);
  });
}

/** "212 ms (85 of 106 beyond 100 ms" (the closing parenthesis is the caller's). */
function describe(f: TermJudgement): string {
  const errors = f.term.startsWith('errors');
  return `${errors ? pct(f.measured) : ms(f.measured)} (${f.exceeding} of ${f.samples} beyond ${errors ? 'success' : ms(f.threshold)}`;
}

/**
 * Whether the service broke this term by itself: errors, or its service time beyond the threshold by more than
 * the generator's worst lag. Service time has no send lag in it, but a generator whose event loop is held also
 * reads its replies late, by about as much as it sends late: only what lies beyond that is the service's.
 */
function serviceBroke(f: TermJudgement, m: StepMeasurement, slo: Slo): boolean {
  const term = slo.terms.find((t) => t.text === f.term);
  if (!term) return false;
  if (term.kind === 'errors') return true;
  return term.metric === 'latency' && m.service.percentile(term.quantile * 100) - m.sendLag.summary().max > term.thresholdMs;
}

/** Why the generator, not the service, set this step's figures; undefined when it kept its plan. */
export function generatorProblem(m: StepMeasurement, bounds: GeneratorBounds, sloFailing: boolean): string | undefined {
  // k6 drops an iteration when no VU is free: a request never sent nor timed, likely a slow one's. While the SLO
  // held, the missing ones could have broken it; with it broken, the service's slowness held the VUs (as the pool below).
  const dropped = m.generator.droppedIterations ?? 0;
  if (dropped > 0 && !sloFailing) return `k6 dropped ${dropped} of the ${m.planned} iterations it planned (no free VU: in flight = rate x latency): give it more VUs (--connections)`;
  const q = Math.round(bounds.lagQuantile * 1000) / 10;
  const lag = m.sendLag.percentile(q);
  // Late sends judged by their count where it is kept: a share beyond the SLO's own tail, and at least
  // LATE_SENDS of them (in a window of 50 sends, one scheduler hiccup makes the p99 the maximum).
  const late = m.sendLag.counts(bounds.lagBoundMs) ? m.sendLag.exceeding(bounds.lagBoundMs) : undefined;
  const tooLate = late === undefined ? lag > bounds.lagBoundMs : late >= LATE_SENDS && late / m.sendLag.count > 1 - bounds.lagQuantile;
  if (m.sendLag.count > 0 && tooLate) return `the generator sent late: send lag p${q} ${ms(lag)}${late !== undefined ? `, ${late} of ${m.sendLag.count} sends later than ${ms(bounds.lagBoundMs)}` : ` (bound ${ms(bounds.lagBoundMs)})`}; lag adds to every latency from the planned send`;
  if (m.generator.eventLoopUtilization >= bounds.eventLoopUtilization) return `the generator's event loop was busy ${pct(m.generator.eventLoopUtilization)} of the window (saturated at ${pct(bounds.eventLoopUtilization)})`;
  const windowS = m.windowMs / 1000;
  if (windowS > 0 && m.planned > 0 && m.sent + dropped < m.planned * 0.97) return `the generator sent ${m.sent} of the ${m.planned} requests it planned`;
  // A pool that queued while the SLO held offered the service less than planned; with the SLO broken, the
  // service's slowness filled the pool (in flight = rate x latency): that is the service's.
  if (m.generator.poolQueuedMax > 0 && !sloFailing) return `the generator's connection pool queued up to ${m.generator.poolQueuedMax} requests (all its connections busy): raise --connections`;
  return undefined;
}

/**
 * Judges the step so far. `final`: every reply of the windows is in. `canExtend`: another window is allowed.
 * Before the final replies only a broken SLO or 429s end the step (requests in flight count at their age, a
 * lower bound, so a term that fails now fails for good).
 */
export function judgeStep(m: StepMeasurement, slo: Slo, bounds: GeneratorBounds, final: boolean, canExtend: boolean): StepJudgement {
  const judged = terms(m, slo);
  const failing = judged.filter((t) => t.verdict === 'fail');
  const uncertain = judged.filter((t) => t.verdict === 'uncertain');
  const total = m.settled + m.pending;
  if (m.rateLimited > 0) {
    return { decision: 'done', verdict: 'rate-limited', reason: `${m.rateLimited} of ${total} requests drew 429 (${pct(m.rateLimited / Math.max(1, total))}): a rate limit, not a capacity`, terms: judged };
  }
  const generator = generatorProblem(m, bounds, failing.length > 0);
  // A term the service broke by itself (errors, or its service time alone beyond the threshold: lag is not in
  // it) is the service's, however late the generator was.
  const byService = failing.find((f) => serviceBroke(f, m, slo));
  if (generator && byService) {
    return {
      decision: 'done', verdict: 'fail', terms: judged,
      reason: `${byService.term} broke by the service's own time: ${describe(byService)}); the generator was also late (${generator})`,
    };
  }
  if (generator) {
    if (!final && failing.length === 0) return { decision: 'wait', verdict: 'invalid', reason: generator, terms: judged };
    return { decision: 'done', verdict: 'invalid', reason: generator, terms: judged };
  }
  if (failing.length > 0) {
    const f = failing[0]!;
    const pendingNote = m.pending > 0 ? `; ${m.pending} requests were still in flight, counted at their age so far` : '';
    return { decision: 'done', verdict: 'fail', terms: judged, reason: `${f.term} broke: ${describe(f)}${pendingNote})` };
  }
  if (!final) return { decision: 'wait', verdict: 'uncertain', reason: 'replies still in flight', terms: judged };
  const backlog = m.sent - m.completedInWindows;
  if (m.sent > 0 && backlog >= BACKLOG_MIN && backlog / m.sent > BACKLOG_SHARE) {
    return {
      decision: 'done', verdict: 'fail', terms: judged,
      reason: `completions fell behind the offered rate: ${m.completedInWindows} replies in the window for ${m.sent} sent (in flight ${m.inFlight.start} -> ${m.inFlight.end})`,
    };
  }
  const growth = queueGrowth(m, slo);
  if (growth) return { decision: 'done', verdict: 'fail', terms: judged, reason: growth };
  if (uncertain.length > 0) {
    const u = uncertain[0]!;
    if (canExtend) return { decision: 'extend', verdict: 'uncertain', reason: `${u.term}: ${u.exceeding} of ${u.samples} beyond it cannot decide yet`, terms: judged };
    return {
      decision: 'done', verdict: 'uncertain', terms: judged,
      reason: `${u.term} undecided after the longest window: ${u.exceeding} of ${u.samples} beyond it, interval ${pct(u.interval[0])}-${pct(u.interval[1])} around the allowed ${pct(u.allowedShare)} (counted as not holding)`,
    };
  }
  return { decision: 'done', verdict: 'pass', reason: `held: ${judged.map((t) => `${t.term.split('<=')[0]} ${t.term.startsWith('errors') ? pct(t.measured) : ms(t.measured)}`).join(', ')}`, terms: judged };
}

/** Samples each end of a window needs before their medians are compared. */
const TREND_SAMPLES = 20;
/** A rise of the median across one window by this share of the tightest latency threshold is a queue that grows. */
const TREND_SHARE = 0.25;
/** Requests in flight a growing queue has added across the window, at least. */
const TREND_IN_FLIGHT = 3;

/**
 * Why the step's queue grows, or undefined. Slightly past capacity a queue grows slowly: at 3 % over, a 1 s
 * window ends 30 ms behind and its percentiles still look fine, though the SLO breaks given time. Latency
 * by planned send time rising across the window (the median of its last quarter over its first quarter, by a
 * quarter of the threshold or more) while requests in flight grew says so now.
 */
export function queueGrowth(m: StepMeasurement, slo: Slo): string | undefined {
  const thresholds = slo.terms.flatMap((t) => (t.kind === 'latency' && t.metric !== 'ttfp' ? [t.thresholdMs] : []));
  // In flight must have grown by a few requests, not one: a busy moment of this machine raises latency too.
  if (thresholds.length === 0 || m.inFlight.end - m.inFlight.start < TREND_IN_FLIGHT) return undefined;
  const from = m.warmupMs;
  const to = m.warmupMs + m.windowMs;
  const bins = m.bins.filter((b) => b.atMs >= from && b.atMs + BIN_MS <= to + 1);
  let q = 1;
  while (2 * q <= bins.length && bins.slice(0, q).reduce((n, b) => n + b.latency.count, 0) < TREND_SAMPLES) q++;
  if (2 * q > bins.length) return undefined;
  const merged = (part: typeof bins) => part.reduce((h, b) => (h.add(b.latency), h), new LatencyHistogram());
  const first = merged(bins.slice(0, q));
  const last = merged(bins.slice(-q));
  if (first.count < TREND_SAMPLES || last.count < TREND_SAMPLES) return undefined;
  const rise = last.percentile(50) - first.percentile(50);
  const bound = TREND_SHARE * Math.min(...thresholds);
  if (rise <= bound) return undefined;
  return `the queue grows: median latency rose from ${ms(first.percentile(50))} to ${ms(last.percentile(50))} across the window (more than a quarter of ${ms(Math.min(...thresholds))}), in flight ${m.inFlight.start} -> ${m.inFlight.end}`;
}
