/**
 * Emptying a key's bucket: requests back to back (a few in flight at once) until the first 429, then
 * single requests until one more 429 answers with nothing else in flight (its Retry-After is then about
 * the bucket as it is, not as it was mid-volley). From an idle key the volley also measures the burst:
 * the successes it got, less what refilled while it ran.
 */
import { isOk, isThrottled, type ProbeClient, type ProbeReply } from './client.js';

export interface VolleyOptions {
  /** Requests in flight at once. */
  concurrency: number;
  /** Most requests in the volley: a bucket larger than this is not found. */
  maxRequests: number;
  /** Most time the volley takes, ms. */
  maxMs: number;
}

export interface Volley {
  sent: number;
  ok: number;
  throttled: number;
  other: number;
  /** ms on the probe clock. */
  firstSentAt: number;
  firstReceivedAt: number;
  lastReceivedAt: number;
  /** The first 429 received, if any. */
  first429?: ProbeReply;
  /** The first 2xx received (for its rate-limit fields). */
  first2xx?: ProbeReply;
  /** Every reply, in the order sent. */
  replies: ProbeReply[];
}

/** Back-to-back requests with `key` until a 429 comes back (or a bound is reached); waits for those in flight. */
export async function volley(client: ProbeClient, key: string, options: VolleyOptions): Promise<Volley> {
  const replies: ProbeReply[] = [];
  const start = client.now();
  let stop = false;
  let sent = 0;
  const worker = async () => {
    while (!stop && sent < options.maxRequests && client.now() - start < options.maxMs) {
      const index = sent++;
      const reply = await client.trySend(key);
      if (!reply) {
        stop = true;
        return;
      }
      replies[index] = reply;
      // Unreachable or refusing: one volley of errors says enough.
      if (isThrottled(reply) || reply.status === 0) stop = true;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  const done = replies.filter(Boolean);
  const first429 = done.filter(isThrottled).sort((a, b) => a.receivedAt - b.receivedAt)[0];
  const first2xx = done.filter(isOk).sort((a, b) => a.receivedAt - b.receivedAt)[0];
  return {
    sent: done.length,
    ok: done.filter(isOk).length,
    throttled: done.filter(isThrottled).length,
    other: done.filter((r) => !isOk(r) && !isThrottled(r)).length,
    firstSentAt: done[0]?.sentAt ?? start,
    firstReceivedAt: done.length ? Math.min(...done.map((r) => r.receivedAt)) : start,
    lastReceivedAt: Math.max(start, ...done.map((r) => r.receivedAt)),
    ...(first429 && { first429 }),
    ...(first2xx && { first2xx }),
    replies: done,
  };
}

export interface Throttled {
  volley: Volley;
  /** A 429 received with nothing else of this key in flight; undefined when the key could not be throttled. */
  settled429?: ProbeReply;
  /** Requests sent after the volley to get `settled429`. */
  extra: number;
}

/**
 * Drives `key` into throttling: a volley, then single requests until a 429 (at most `maxSingles`). When
 * the bucket refills faster than single requests go, the volley's last 429 stands in.
 */
export async function throttle(client: ProbeClient, key: string, options: VolleyOptions & { maxSingles: number }): Promise<Throttled> {
  const v = await volley(client, key, options);
  if (!v.first429) return { volley: v, extra: 0 };
  let extra = 0;
  while (extra < options.maxSingles) {
    const reply = await client.trySend(key);
    if (!reply) break;
    extra++;
    if (isThrottled(reply)) return { volley: v, settled429: reply, extra };
    if (reply.status === 0) break;
  }
  const last429 = v.replies.filter(isThrottled).sort((a, b) => b.receivedAt - a.receivedAt)[0];
  return { volley: v, ...(last429 && { settled429: last429 }), extra };
}

/**
 * The burst (bucket capacity) a volley from an idle key shows. The volley got the capacity plus the refill
 * at `ratePerSecond` while it ran (first reply to last reply: about the span of the server's decisions),
 * less the fraction of a token left unused at the end (between 0 and 1: counted as 0.5). Undefined
 * without a 429 (the burst is larger than the volley).
 */
export function burstFromVolley(v: Pick<Volley, 'ok' | 'firstReceivedAt' | 'lastReceivedAt' | 'first429'>, ratePerSecond: number | undefined): number | undefined {
  if (!v.first429) return undefined;
  if (ratePerSecond === undefined) return v.ok;
  const refill = (ratePerSecond * Math.max(0, v.lastReceivedAt - v.firstReceivedAt)) / 1000;
  return Math.max(0, v.ok - refill + 0.5);
}
