import type { Exchange } from '../wire/exchange.js';
import { stalledWithin, type Stall } from './machine.js';

/**
 * Whose time ran out when an SDK client gave up waiting (a timeout, a deadline, a hang): the service's, or
 * the harness's own machine's (issue 33: "What the harness's own machine causes is never the service's
 * fault"). Judged from the wire the client's recording proxy (or recording fetch) recorded in the time the
 * client waited, and the harness's event-loop stalls in it:
 *
 * - the service's, when a request of the client went unanswered, or was answered slower, for more than half
 *   the deadline of the harness's attention (stalls left out): as before, the row fails;
 * - the service's too, when the client held the service's complete reply for half its deadline and still
 *   gave up: the reply is what it could not use (a stream its SDK cannot parse, an id it does not know);
 * - the harness's, when every request got its complete reply well within the deadline and the client's wait
 *   went elsewhere: its start-up, the stdio proxy's, the harness's stalled event loop. The row is then not
 *   testable with that account, never a failure.
 */

/** An SDK's own words for giving up on time: TypeScript ("timed out", "did not settle"), Go ("context deadline exceeded"), Python. */
export const TIMEOUT_TEXT = /timed? ?out|timeout|deadline|did not settle/i;

export interface TimedWait {
  /** What the client was doing, for the reason ("connect", "tools/call schedule.preview"). */
  what: string;
  /** The connect step: time before its first request reached the service is start-up (a spawned stdio proxy). */
  connect: boolean;
  /** When the client's wait began and when it gave up, epoch ms. */
  from: number;
  to: number;
  /** The deadline the client was given for one request. */
  deadlineMs: number;
  /** The client's exchanges (others outside [from, to] are ignored). */
  wire: readonly Exchange[];
  stalls: readonly Stall[];
}

export type Blame = { side: 'service' } | { side: 'harness'; reason: string };

/** The ids of the JSON-RPC requests (not notifications) a request body carries. */
function requestIds(body: string | undefined): unknown[] {
  try {
    const parsed = JSON.parse(body ?? '') as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed])
      .filter((m): m is { id: unknown; method: unknown } => typeof m === 'object' && m !== null && 'id' in m && typeof (m as { method?: unknown }).method === 'string')
      .map((m) => m.id);
  } catch {
    return [];
  }
}

/** Whether `text` is (or holds, in an array) a JSON-RPC response to every one of `ids`. */
function answers(text: string, ids: readonly unknown[], found: Set<string>): void {
  try {
    const parsed = JSON.parse(text) as unknown;
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      if (typeof m !== 'object' || m === null || !('id' in m) || !('result' in m || 'error' in m)) continue;
      const id = JSON.stringify((m as { id: unknown }).id);
      if (ids.some((x) => JSON.stringify(x) === id)) found.add(id);
    }
  } catch {
    // not JSON: answers nothing
  }
}

/**
 * Milliseconds after it was sent at which the exchange's reply was complete, or undefined while it was not
 * (no reply, a stream still open, a reply without the response to the request's id).
 */
export function repliedAt(x: Exchange): number | undefined {
  const r = x.response;
  if (!r) return undefined;
  // A GET opens the client's listening stream (or is refused): its headers are its answer; so for DELETE.
  if (x.request.method !== 'POST') return r.headersAt;
  const ids = requestIds(x.request.body);
  // A notification, or a refusal (401, 4xx, 5xx): complete when the body ended.
  if (ids.length === 0 || r.status < 200 || r.status > 299) return r.closed === false ? undefined : r.endAt;
  const found = new Set<string>();
  if (r.events) {
    for (const e of r.events) {
      answers(e.data, ids, found);
      if (found.size === ids.length) return e.at;
    }
    return undefined;
  }
  if (r.closed === false || r.body === undefined) return undefined;
  answers(r.body, ids, found);
  // A body cut short in the record (clipped) cannot be read: it ended, which is all the wire says.
  if (found.size === ids.length || !/[}\]]\s*$/.test(r.body)) return r.endAt;
  return undefined;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Whose time ran out: see the module's comment. */
export function blameTimeout(w: TimedWait): Blame {
  const half = w.deadlineMs / 2;
  const unstalled = (from: number, to: number) => Math.max(0, to - from - stalledWithin(w.stalls, from, to));
  // The client's requests in its wait (a ms of slack: the wire's clock has ms resolution).
  const sent = w.wire
    .map((x) => ({ x, at: Date.parse(x.startedAt) }))
    .filter(({ at }) => Number.isFinite(at) && at >= w.from - 1 && at <= w.to)
    .map(({ x, at }) => {
      const replied = repliedAt(x);
      return { at, end: replied === undefined ? w.to : Math.min(w.to, at + replied), answered: replied !== undefined };
    });
  let slowest = 0;
  let openLongest = 0;
  for (const r of sent) {
    const took = unstalled(r.at, r.end);
    // Unanswered, or answered late, for half the deadline of the harness's attention: the service's time.
    if (took > half) return { side: 'service' };
    if (r.answered) slowest = Math.max(slowest, took);
    else openLongest = Math.max(openLongest, took);
  }
  // The time no request of the client was open: the client (or its stdio proxy) had every reply so far.
  const busy = sent.map((r) => [r.at, r.end] as const).sort((a, b) => a[0] - b[0]);
  let cursor = w.from;
  let startup = 0;
  const idle: [number, number][] = [];
  for (const [at, end] of busy) {
    if (at > cursor) idle.push([cursor, at]);
    cursor = Math.max(cursor, end);
  }
  if (cursor < w.to) idle.push([cursor, w.to]);
  const first = busy[0]?.[0];
  for (const [a, b] of idle) {
    // Before a connect's first request: the client's transport starting (a stdio proxy spawned), not a reply held.
    if (w.connect && a === w.from && (first === undefined || b === first)) {
      startup = unstalled(a, b);
      continue;
    }
    // The client held the service's complete replies for half its deadline and gave up all the same.
    if (unstalled(a, b) > half) return { side: 'service' };
  }
  const waited = Math.round(w.to - w.from);
  const stalled = Math.round(stalledWithin(w.stalls, w.from, w.to));
  const answered = sent.filter((r) => r.answered).length;
  const open = sent.length - answered;
  const parts = [
    sent.length === 0
      ? 'no request of it reached the service in that time (its transport was still starting)'
      : `of its ${sent.length} request(s) the service ${[
        ...(answered > 0 ? [`answered ${answered} completely within ${Math.round(slowest)} ms`] : []),
        ...(open > 0 ? [`had ${open} open for only ${Math.round(openLongest)} ms of the harness's attention (its stalls left out)`] : []),
      ].join(' and ')} (the deadline: ${w.deadlineMs} ms)`,
    ...(startup > 0 && sent.length > 0 ? [`${seconds(startup)} went by before its first request reached the service (the client's start-up: its runtime, its transport, a stdio proxy it spawns)`] : []),
    ...(stalled > 0 ? [`the harness's own event loop stalled for ${seconds(stalled)} of it (replies waited unread)`] : []),
  ];
  return {
    side: 'harness',
    reason: `not judged: the client's ${w.what} gave up after waiting ${seconds(waited)}, but ${parts.join('; ')}: the time went to the harness's machine (starved), not to the service`,
  };
}
