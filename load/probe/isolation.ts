/**
 * Does throttling one key touch another? Key A is emptied, then offered well over its limit (an open-model
 * step, which also shows the limiter's shape); while A is being refused, a sibling key of the same
 * workspace and a key of another workspace send a few spaced requests each, within their own limits.
 * Limits are per key (the reference: "one token bucket per API key"), so both must be served.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isOk, isThrottled, type ProbeClient, type ProbeReply } from './client.js';
import { throttle, type VolleyOptions } from './burst.js';
import { openStep, type StepOutcome } from './stepper.js';

export interface SideFinding {
  /** Statuses of the side key's requests (0: no reply). */
  statuses: number[];
  /** Some request was answered 429 while A was throttled. */
  touched?: boolean;
  notTestable?: string;
}

export interface IsolationFindings {
  /** A's open step, offered over the limit. */
  aStep: StepOutcome;
  /** A's 429s received while the side keys were sending (A throttled throughout the test). */
  a429DuringSide: number;
  sibling: SideFinding;
  other: SideFinding;
}

export interface IsolationOptions {
  rate: number;
  durationS: number;
  maxInFlight: number;
  volley: VolleyOptions & { maxSingles: number };
  /** Requests per side key, and the pause between them (both within one key's own limit). */
  sideRequests: number;
  sideSpacingMs: number;
}

async function sideSequence(client: ProbeClient, key: string, n: number, spacingMs: number): Promise<ProbeReply[]> {
  const out: ProbeReply[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0) await sleep(spacingMs);
    const reply = await client.trySend(key);
    if (!reply) break;
    out.push(reply);
  }
  return out;
}

function judge(replies: ProbeReply[] | undefined, missing: string, aThrottled: boolean): SideFinding {
  if (!replies) return { statuses: [], notTestable: missing };
  const statuses = replies.map((r) => r.status);
  if (replies.some(isThrottled)) return { statuses, touched: true };
  const odd = replies.find((r) => !isOk(r));
  if (odd) return { statuses, notTestable: `the key's own requests were answered ${odd.status || `with no reply (${odd.error ?? 'error'})`}` };
  if (!aThrottled) return { statuses, notTestable: 'key A was not refused while this key sent' };
  return { statuses, touched: false };
}

export async function probeIsolation(client: ProbeClient, keys: { a: string; sibling?: string; other?: string }, missing: { sibling: string; other: string }, options: IsolationOptions): Promise<IsolationFindings> {
  await throttle(client, keys.a, options.volley);
  const step = openStep(client, keys.a, options.rate, options.durationS, options.maxInFlight);
  // Let A's refusals start before the side keys send.
  await sleep(Math.min(500, (options.durationS * 1000) / 4));
  const [sibling, other] = await Promise.all([
    keys.sibling ? sideSequence(client, keys.sibling, options.sideRequests, options.sideSpacingMs) : undefined,
    keys.other ? sideSequence(client, keys.other, options.sideRequests, options.sideSpacingMs) : undefined,
  ]);
  const aStep = await step;
  const side = [...(sibling ?? []), ...(other ?? [])];
  const from = Math.min(...side.map((r) => r.sentAt));
  const to = Math.max(...side.map((r) => r.receivedAt));
  // A was refused during the side requests if a 429 of A came back between their first send and last reply.
  const a429DuringSide = side.length ? aStep.replies.filter((r) => isThrottled(r) && r.receivedAt >= from && r.sentAt <= to).length : 0;
  const aThrottled = a429DuringSide > 0;
  return { aStep, a429DuringSide, sibling: judge(sibling, missing.sibling, aThrottled), other: judge(other, missing.other, aThrottled) };
}
