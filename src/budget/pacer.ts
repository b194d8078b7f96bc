import { parseLegacyFields, parseRateLimit, parseRetryAfter } from '../wire/rate-limit-headers.js';
import type { RunLedger } from './run-ledger.js';
import type { Tally } from './tally.js';

/** 429s in a row on one request, each waited out as told, before the check is judged throttled. */
export const MAX_RETRIES = 4;
/** Wait when a 429 says nothing about when to come back. */
const DEFAULT_WAIT_MS = 1000;

/** A request's rate bucket on the deployment: its credentials, or the bootstrap endpoint's (per client). */
export function bucketOf(url: string, headers: Record<string, string>): string {
  const auth = Object.entries(headers).find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  if (auth) return `key:${auth}`;
  return new URL(url).pathname.endsWith('/api/agent/bootstrap') ? 'bootstrap' : 'anonymous';
}

/**
 * When the deployment says a bucket will be empty, how long until it refills (ms): `RateLimit` r=0 with t
 * (draft-ietf-httpapi-ratelimit-headers), the older `RateLimit-Remaining`/`-Reset` fields, or a 429's
 * `Retry-After` (RFC 9110 §10.2.3). Undefined when the reply gives no reason to hold back.
 */
export function holdBackMs(status: number, headers: Record<string, string>): number | undefined {
  if (status === 429) {
    const retry = parseRetryAfter(headers['retry-after'], headers.date);
    if (retry.ok) return retry.seconds * 1000;
  }
  if (headers.ratelimit !== undefined) {
    const state = parseRateLimit(headers.ratelimit);
    if (state.ok) {
      const empty = state.value.filter((q) => q.remaining === 0 && q.resetS !== undefined);
      if (empty.length > 0) return Math.max(...empty.map((q) => q.resetS!)) * 1000;
    }
  }
  for (const prefix of ['ratelimit-', 'x-ratelimit-'] as const) {
    const legacy = parseLegacyFields(headers, prefix);
    // Reset as delta seconds only: an epoch value (X- fields, commonly) is far larger than any window.
    if (legacy?.remaining === 0 && legacy.reset !== undefined && legacy.reset < 3600) return legacy.reset * 1000;
  }
  return status === 429 ? DEFAULT_WAIT_MS : undefined;
}

/**
 * What the harness may still wait for one request: `leftMs` of the check's own deadline (OUTSIDE_A_CHECK
 * where no check's deadline bounds it) and the check's whole deadline, for the message.
 */
export interface WaitRoom {
  leftMs: number;
  deadlineMs?: number;
  /** Whose deadline it is, for the message: `this check` unless said. */
  owner?: string;
}

/** The room of a request that no check's deadline bounds (work shared by checks, the SDK clients' proxy). */
export const OUTSIDE_A_CHECK: WaitRoom = { leftMs: 15_000, deadlineMs: 15_000, owner: 'this request' };

/** Why a throttle ended a check: the message, and what a check would have needed instead. */
export interface Throttle {
  message: string;
  status: 429;
  retryAfter?: string;
}

const seconds = (ms: number) => (ms >= 10_000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10);

/**
 * The client-side buckets of one run: after a reply says a bucket is empty, requests on it wait
 * until it refills; a 429 is waited out within the run-wide wait budget (src/budget/run-ledger.ts) and within the
 * check's own deadline. "A throttle is never a pass" (issue 24): a 429 that cannot be waited out is the
 * service keeping the check from judging, so the check fails with that reason.
 */
export class Pacer {
  private readonly readyAt = new Map<string, number>();
  /** Buckets whose hold a 429 set (not a reply's RateLimit fields): waiting on them spends the run's wait budget. */
  private readonly throttled = new Set<string>();
  /**
   * Buckets the deployment refused MAX_RETRIES + 1 times in a row despite waiting as told, with that throttle:
   * until one of their requests is served, a 429 on them ends the request at once (waiting would cost every
   * check the same seconds for the same answer).
   */
  private readonly refusing = new Map<string, string>();

  /** The run's ledger (its wait budget) and tally (what waiting cost): src/engine/run-state.ts, one pacer per run. */
  constructor(private readonly ledger: () => RunLedger, private readonly tally: Tally) {}

  /**
   * Waits until the bucket is expected to hold a token again. A hold longer than the check can wait is not
   * waited: the request goes now, and its own reply (a 429, most likely) is judged by `next`.
   */
  async before(bucket: string, room: WaitRoom = OUTSIDE_A_CHECK): Promise<void> {
    const wait = (this.readyAt.get(bucket) ?? 0) - Date.now();
    if (wait <= 0 || wait > room.leftMs) return;
    // Held by a 429 once the run's wait budget is spent: the reply will be a 429 that cannot be waited out either.
    if (this.throttled.has(bucket) && this.ledger().waitLeftMs() <= 0) return;
    this.tally.add({ waitedMs: wait });
    await sleep(wait);
  }

  /** Learns from a reply: the bucket is held until it is expected to refill (`before` waits it out). */
  learn(bucket: string, status: number, headers: Record<string, string>): number | undefined {
    const hold = holdBackMs(status, headers);
    // A 429 always waits a little: Retry-After 0 from a bucket that is still empty would spin.
    const wait = status === 429 ? Math.max(hold ?? DEFAULT_WAIT_MS, 50) : hold;
    if (wait !== undefined && wait > 0) this.readyAt.set(bucket, Math.max(this.readyAt.get(bucket) ?? 0, Date.now() + wait));
    if (status === 429) this.throttled.add(bucket);
    else {
      this.throttled.delete(bucket);
      this.refusing.delete(bucket);
    }
    return wait;
  }

  /**
   * Learns from the reply to attempt `attempt` (0 first) of a request to `url` and says what comes next:
   * take the reply, or send again (a 429 to wait out; `before` waits), or stop: the throttle the check fails
   * with, when the 429 cannot be waited out (beyond the wait budget, beyond the check's deadline, or
   * refused again after waiting as told). The one rule of every request a check sends, through the wire
   * client or an SDK.
   */
  async next(bucket: string, url: string, attempt: number, status: number, headers: Record<string, string>, room: WaitRoom = OUTSIDE_A_CHECK): Promise<{ again: boolean; throttled?: Throttle }> {
    const wait = this.learn(bucket, status, headers);
    if (status !== 429 || wait === undefined) return { again: false };
    const path = new URL(url).pathname;
    const told = headers['retry-after'] !== undefined ? `Retry-After: ${headers['retry-after']}` : 'no Retry-After';
    const stop = (message: string) => ({ again: false, throttled: { message, status: 429 as const, ...(headers['retry-after'] !== undefined && { retryAfter: headers['retry-after'] }) } });
    if (attempt >= MAX_RETRIES) {
      const message = `throttled: ${path} answered 429 ${attempt + 1} times in a row despite waiting as told (${told})`;
      this.refusing.set(bucket, message);
      return stop(message);
    }
    const before = this.refusing.get(bucket);
    if (before) return stop(`${before}; this request on the same bucket got 429 again (${told}) and was not waited out`);
    const throttledFor = `throttled for ${seconds(wait)} s (429 from ${path}, ${told})`;
    if (wait > room.leftMs) {
      return stop(`${throttledFor}, beyond the ${seconds(Math.max(0, room.leftMs))} s ${room.owner ?? 'this check'} has left of its ${seconds(room.deadlineMs ?? room.leftMs)} s deadline`);
    }
    const reserved = this.ledger().reserveWait(wait);
    if (!reserved.granted) return stop(`${throttledFor}, beyond the wait budget of ${seconds(reserved.budgetMs)} s (--wait-budget; ${seconds(reserved.leftMs)} s of it left)`);
    this.tally.add({ rateLimited: 1 });
    return { again: true };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

