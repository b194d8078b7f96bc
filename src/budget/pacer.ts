import { parseLegacyFields, parseRateLimit, parseRetryAfter } from '../wire/rate-limit-headers.js';
import type { TargetInfo } from '../target-info.js';
import { reserveWait } from './broker-client.js';
import { addSpent } from './tally.js';

/** The longest single wait the harness accepts from a 429 before it gives the check up as not testable. */
export const MAX_SINGLE_WAIT_MS = 15_000;
/** 429s in a row on one request before the check gives up. */
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
 * The client-side bucket of one suite worker: after a reply says a bucket is empty, requests on it wait
 * until it refills; a 429 is waited out within the run-wide wait budget the broker keeps.
 */
class Pacer {
  private readonly readyAt = new Map<string, number>();
  private target: TargetInfo | undefined;

  configure(target: TargetInfo): void {
    this.target = target;
  }

  /** Waits until the bucket is expected to hold a token again. */
  async before(bucket: string): Promise<void> {
    const wait = (this.readyAt.get(bucket) ?? 0) - Date.now();
    if (wait > 0) {
      addSpent({ waitedMs: wait });
      await sleep(Math.min(wait, MAX_SINGLE_WAIT_MS));
    }
  }

  /**
   * Learns from a reply: the bucket is held until it is expected to refill (`before` waits it out). For a
   * 429, a reason to give up instead of sending again, if there is one.
   */
  async after(bucket: string, status: number, headers: Record<string, string>): Promise<{ giveUp?: string }> {
    const hold = holdBackMs(status, headers);
    // A 429 always waits a little: Retry-After 0 from a bucket that is still empty would spin.
    const wait = status === 429 ? Math.max(hold ?? DEFAULT_WAIT_MS, 50) : hold;
    if (wait !== undefined && wait > 0) this.readyAt.set(bucket, Math.max(this.readyAt.get(bucket) ?? 0, Date.now() + Math.min(wait, MAX_SINGLE_WAIT_MS)));
    if (status !== 429 || wait === undefined) return {};
    if (wait > MAX_SINGLE_WAIT_MS) return { giveUp: `the deployment asked to wait ${Math.round(wait / 1000)} s (more than the ${MAX_SINGLE_WAIT_MS / 1000} s the harness waits for one request)` };
    const reserved = this.target ? await reserveWait(this.target, wait) : { granted: true };
    if (!reserved.granted) return { giveUp: `the run's wait budget for 429s (${Math.round((reserved.budgetMs ?? 0) / 1000)} s, --wait-budget) is spent` };
    addSpent({ rateLimited: 1 });
    return {};
  }

  /**
   * Learns from the reply to attempt `attempt` (0 first) of a request to `url` and says what comes next:
   * take the reply, send again (a 429 waited out; `before` waits), or give up with the reason a rate-limited
   * check is not testable. The one rule of every request a check sends, through the wire client or an SDK.
   */
  async next(bucket: string, url: string, attempt: number, status: number, headers: Record<string, string>): Promise<{ again: boolean; limited?: string }> {
    const { giveUp } = await this.after(bucket, status, headers);
    if (status !== 429) return { again: false };
    const path = new URL(url).pathname;
    if (giveUp) return { again: false, limited: `${path} answered 429 and ${giveUp}` };
    if (attempt >= MAX_RETRIES) return { again: false, limited: `${path} answered 429 ${attempt + 1} times in a row despite waiting as told` };
    return { again: true };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** This process's pacer: one per suite worker, shared by every wire client in it. */
export const pacer = new Pacer();
