/**
 * A step's verdict, in the order that keeps a number honest: 429s first (a rate limit is never a capacity),
 * then the generator (a step it could not offer as planned says nothing about the service), then the SLO's
 * terms each judged as a share with its 95 % interval, then whether completions kept up with arrivals (a queue
 * that grows through the window breaks any SLO given time, even while its early samples look fine).
 */
import type { StepVerdict, TermJudgement } from './capacity-result.js';
import type { Decision, StepMeasurement } from './open-model-driver.js';
import { judgeShare, type Slo } from './slo.js';

export interface GeneratorBounds {
  /** Send lag p99 beyond which the generator did not send as planned, ms. */
  lagP99Ms: number;
  /** Event-loop utilization at or beyond which the generator was saturated. */
  eventLoopUtilization: number;
}

/** Default lag bound: a tenth of the tightest latency threshold, within [5, 50] ms: lag adds to every planned-send latency. */
export function defaultGeneratorBounds(slo: Slo): GeneratorBounds {
  const tightest = Math.min(...slo.terms.flatMap((t) => (t.kind === 'latency' ? [t.thresholdMs] : [])), 500);
  return { lagP99Ms: Math.min(50, Math.max(5, tightest / 10)), eventLoopUtilization: 0.95 };
}

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

/** Why the generator, not the service, set this step's figures; undefined when it kept its plan. */
export function generatorProblem(m: StepMeasurement, bounds: GeneratorBounds, sloFailing: boolean): string | undefined {
  // k6 drops an iteration when no VU is free: a request never sent nor timed, likely a slow one's. While the SLO
  // held, the missing ones could have broken it; with it broken, the service's slowness held the VUs (as the pool below).
  const dropped = m.generator.droppedIterations ?? 0;
  if (dropped > 0 && !sloFailing) return `k6 dropped ${dropped} of the ${m.planned} iterations it planned (no free VU: in flight = rate x latency): give it more VUs (--connections)`;
  const lag = m.sendLag.percentile(99);
  if (m.sendLag.count > 0 && lag > bounds.lagP99Ms) return `the generator sent late: send lag p99 ${ms(lag)} (bound ${ms(bounds.lagP99Ms)}; lag adds to every latency from the planned send)`;
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
  if (generator) {
    if (!final && failing.length === 0) return { decision: 'wait', verdict: 'invalid', reason: generator, terms: judged };
    return { decision: 'done', verdict: 'invalid', reason: generator, terms: judged };
  }
  if (failing.length > 0) {
    const f = failing[0]!;
    const measured = f.term.startsWith('errors') ? pct(f.measured) : ms(f.measured);
    const pendingNote = m.pending > 0 ? `; ${m.pending} requests were still in flight, counted at their age so far` : '';
    return {
      decision: 'done', verdict: 'fail', terms: judged,
      reason: `${f.term} broke: ${measured} (${f.exceeding} of ${f.samples} beyond ${f.term.startsWith('errors') ? 'success' : ms(f.threshold)}${pendingNote})`,
    };
  }
  if (!final) return { decision: 'wait', verdict: 'uncertain', reason: 'replies still in flight', terms: judged };
  const backlog = m.sent - m.completedInWindows;
  if (m.sent > 0 && backlog >= BACKLOG_MIN && backlog / m.sent > BACKLOG_SHARE) {
    return {
      decision: 'done', verdict: 'fail', terms: judged,
      reason: `completions fell behind the offered rate: ${m.completedInWindows} replies in the window for ${m.sent} sent (in flight ${m.inFlight.start} -> ${m.inFlight.end})`,
    };
  }
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
