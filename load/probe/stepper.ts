/**
 * Stepped open-model load on one key: requests at fixed scheduled times (request i at (i + 1) / rate after
 * the start), whatever the replies, with a bound on requests in flight; and the pure rules that choose the
 * next offered rate (geometric steps up until throttled, then bisection between the last clean step and
 * the first throttled one) and classify a step.
 */
import { is2xx, type ProbeClient, type ProbeReply } from './client.js';

export interface StepOutcome {
  /** When the step began (probe clock, ms): the first request goes one interval later. */
  startedAt: number;
  /** Offered rate, requests/s. */
  offered: number;
  /** Scheduled duration (requests / offered), s. */
  durationS: number;
  scheduled: number;
  sent: number;
  /** Not sent: the in-flight bound was reached at their scheduled time (the target or the probe could not keep up). */
  notSent: number;
  accepted2xx: number;
  throttled429: number;
  /** Any other reply: other statuses, timeouts, connection errors. */
  other: number;
  /** Status of each scheduled request in send order (-1 not sent, 0 no reply). */
  statuses: number[];
  /** The replies, for their fields (in send order, sent ones only). */
  replies: ProbeReply[];
  /** How late the latest request went out after its scheduled time, ms (the probe's event loop stalling). */
  maxLateMs: number;
}

/**
 * A step whose requests went out this late was disturbed on the probe's side: after a stall the overdue
 * requests go out at once, a burst that a token bucket may refuse although the offered rate is under its
 * limit (seen on a loaded 2-core machine: a step at 40 req/s throttled under a 50 req/s limit). Timer jitter
 * on a quiet machine is a few ms.
 */
export const DISTURBED_LATE_MS = 250;

/**
 * Why a step says nothing sound about the limit, or undefined: requests that left late (the probe stalled),
 * or, on a throttled step, replies far later than the step's median (the target or the way to it stalled,
 * and the requests queued meanwhile reached its limiter at once: the same burst, on the other side).
 */
export function disturbance(s: Pick<StepOutcome, 'maxLateMs' | 'replies'> & { class: StepClass }): string | undefined {
  if (s.maxLateMs > DISTURBED_LATE_MS) {
    return `requests went out up to ${Math.round(s.maxLateMs)} ms late (the probe's event loop stalled, and the overdue requests left at once: a burst the limit may refuse)`;
  }
  if (s.class !== 'throttled') return undefined;
  const latencies = s.replies.filter((r) => r.status !== 0).map((r) => r.receivedAt - r.sentAt).sort((a, b) => a - b);
  if (latencies.length < 5) return undefined;
  const spike = latencies.at(-1)! - latencies[Math.floor(latencies.length / 2)]!;
  if (spike <= DISTURBED_LATE_MS) return undefined;
  return `a reply came ${Math.round(spike)} ms later than the step's median (the target or the way to it stalled, and the requests queued meanwhile reached its limiter at once: a burst it may refuse)`;
}

/**
 * Sends `round(rate * durationS)` requests (at least 1) at `(i + 1) / rate` s after now: the first one
 * comes one interval after the call, so a bucket just emptied has refilled `rate`'s share by then.
 */
export async function openStep(client: ProbeClient, key: string, rate: number, durationS: number, maxInFlight: number): Promise<StepOutcome> {
  const scheduled = Math.max(1, Math.round(rate * durationS));
  const statuses = new Array<number>(scheduled).fill(-1);
  const replies: Array<ProbeReply | undefined> = new Array(scheduled);
  const pending: Array<Promise<void>> = [];
  const start = client.now();
  let next = 0;
  let inFlight = 0;
  let budgetGone = false;
  let maxLateMs = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = client.now();
      while (next < scheduled && start + ((next + 1) / rate) * 1000 <= now) {
        const i = next++;
        if (budgetGone || inFlight >= maxInFlight) continue; // stays -1: not sent
        maxLateMs = Math.max(maxLateMs, now - (start + ((i + 1) / rate) * 1000));
        inFlight++;
        pending.push(client.trySend(key).then((r) => {
          inFlight--;
          if (!r) {
            budgetGone = true;
            return;
          }
          statuses[i] = r.status;
          replies[i] = r;
        }));
      }
      if (next >= scheduled) return resolve();
      setTimeout(tick, Math.max(0, start + ((next + 1) / rate) * 1000 - client.now()));
    };
    tick();
  });
  await Promise.all(pending);
  const sent = statuses.filter((s) => s !== -1).length;
  return {
    startedAt: start,
    offered: rate,
    durationS: scheduled / rate,
    scheduled,
    sent,
    notSent: scheduled - sent,
    accepted2xx: statuses.filter(is2xx).length,
    throttled429: statuses.filter((s) => s === 429).length,
    other: statuses.filter((s) => s !== -1 && s !== 429 && !is2xx(s)).length,
    statuses,
    replies: replies.filter((r): r is ProbeReply => r !== undefined),
    maxLateMs,
  };
}

// ---------------------------------------------------------------------------------------------------
// Pure rules

export type StepClass = 'clean' | 'throttled' | 'saturated';

/**
 * throttled: at least two 429s and 3 % of the requests sent (one 429 right at a just-emptied bucket is
 * noise); saturated: no throttling, but requests went unsent or unanswered (the target or the probe is
 * at its capacity, which says nothing about the limit); clean otherwise.
 */
export function classifyStep(s: Pick<StepOutcome, 'sent' | 'notSent' | 'throttled429' | 'other' | 'scheduled'>): StepClass {
  if (s.throttled429 >= 2 && s.throttled429 >= 0.03 * s.sent) return 'throttled';
  if (s.notSent + s.other > Math.max(1, 0.02 * s.scheduled)) return 'saturated';
  return 'clean';
}

export interface SteppingRules {
  startRate: number;
  /** Geometric factor between steps before the first throttled one. */
  factor: number;
  maxRate: number;
  /** Bisection steps after the bracket is found. */
  refineSteps: number;
  /** Stop refining when (throttled - clean) / throttled is at most this. */
  precision: number;
}

export interface StepRecord {
  offered: number;
  phase: 'geometric' | 'bisect';
  class: StepClass;
}

export type NextStep =
  | { rate: number; phase: 'geometric' | 'bisect' }
  | { done: 'no-limit'; upTo: number }
  | { done: 'saturated'; upTo: number; at: number }
  | { done: 'bracketed'; clean: number; throttled: number };

/** The bracket so far: highest clean offered rate below the lowest throttled one. */
export function bracket(steps: StepRecord[]): { clean: number; throttled?: number } {
  const throttled = steps.filter((s) => s.class === 'throttled').map((s) => s.offered);
  const lowestThrottled = throttled.length ? Math.min(...throttled) : undefined;
  const clean = steps.filter((s) => s.class === 'clean' && (lowestThrottled === undefined || s.offered < lowestThrottled)).map((s) => s.offered);
  return { clean: clean.length ? Math.max(...clean) : 0, ...(lowestThrottled !== undefined && { throttled: lowestThrottled }) };
}

/** The next offered rate, or why the stepping is over. */
export function nextStep(steps: StepRecord[], rules: SteppingRules): NextStep {
  const last = steps.at(-1);
  if (!last) return { rate: Math.min(rules.startRate, rules.maxRate), phase: 'geometric' };
  const b = bracket(steps);
  if (b.throttled === undefined) {
    if (last.class === 'saturated') return { done: 'saturated', upTo: b.clean, at: last.offered };
    if (last.offered >= rules.maxRate) return { done: 'no-limit', upTo: last.offered };
    return { rate: Math.min(last.offered * rules.factor, rules.maxRate), phase: 'geometric' };
  }
  const refined = steps.filter((s) => s.phase === 'bisect').length;
  if (refined >= rules.refineSteps || (b.throttled - b.clean) / b.throttled <= rules.precision) {
    return { done: 'bracketed', clean: b.clean, throttled: b.throttled };
  }
  // A saturated midpoint cannot be told apart: treat the bracket as found.
  if (last.phase === 'bisect' && last.class === 'saturated') return { done: 'bracketed', clean: b.clean, throttled: b.throttled };
  return { rate: (b.clean + b.throttled) / 2, phase: 'bisect' };
}

/**
 * Of the successes after the first, the share that directly follow another success (in send order). At an
 * offered rate of at least twice the limit a token bucket spreads its successes out (share near 0: a
 * trickle at the refill rate); a fixed window lets its quota through in a run at each window edge
 * (share near 1 - 1/quota). Undefined with fewer than 5 successes.
 */
export function successRunShare(statuses: number[]): number | undefined {
  const ok = (s: number | undefined) => s !== undefined && is2xx(s);
  let successes = 0;
  let following = 0;
  for (let i = 0; i < statuses.length; i++) {
    if (!ok(statuses[i])) continue;
    successes++;
    if (i > 0 && ok(statuses[i - 1])) following++;
  }
  if (successes < 5) return undefined;
  return following / (successes - 1);
}
