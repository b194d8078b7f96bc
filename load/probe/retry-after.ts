/**
 * Is Retry-After honest? RFC 9110 §10.2.3: "Servers send the "Retry-After" header field to indicate how
 * long the user agent ought to wait before making a follow-up request." So: throttle a key, wait what its
 * 429 says, retry: that retry must be served. And, on another throttled key, retry at half the wait: a
 * refusal shows the wait is needed; a success shows Retry-After overstates it (whole seconds cannot say
 * "a 50th of a second"), which is an observation, not a fault.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isOk, isThrottled, type ProbeClient, type ProbeReply } from './client.js';
import { throttle, type VolleyOptions } from './burst.js';
import { parseRetryAfter } from '../../src/wire/rate-limit-headers.js';

/** Margin after the wait, for the reply's transit and timer lateness. */
const MARGIN_MS = 100;
/** How often a refused retry is repeated to find the wait actually needed. */
const SEARCH_EVERY_MS = 250;

export interface RetryRound {
  /** The Retry-After of the throttled key's settled 429, as sent. */
  value?: string;
  seconds?: number;
  /** Seconds waited after that 429 before the retry. */
  waitedS: number;
  /** Status of the retry (0: no reply). */
  status: number;
}

export interface RetryAfterFindings {
  /** Why the rounds could not run (no 429, no usable Retry-After, a wait beyond the budget). */
  notTestable?: string;
  /** The settled 429's Retry-After as sent, its form and its value in seconds. */
  value?: string;
  form?: 'delay-seconds' | 'HTTP-date';
  seconds?: number;
  /** JSON-RPC error code of the 429's body (null: the body had none). */
  rpcCode?: number | null;
  /** The retry after the full wait. */
  atWait?: RetryRound;
  /** When that retry was refused: how long after the 429 a retry was first served (undefined: not within the search). */
  servedAfterS?: number;
  /** The retry at half the wait (on another throttled key). */
  early?: RetryRound;
  /** The early retry was served: Retry-After asks for more than the limiter needs. */
  overstates?: boolean;
}

export interface RetryAfterOptions {
  volley: VolleyOptions & { maxSingles: number };
  /** Longest Retry-After the probe waits out, s. */
  maxWaitS: number;
  /** A key for the next round: a fresh idle key when the target can make one, else the same key. */
  nextKey: () => Promise<string>;
  log: (line: string) => void;
}

async function sendAt(client: ProbeClient, key: string, atMs: number): Promise<ProbeReply | undefined> {
  const delay = atMs - client.now();
  if (delay > 0) await sleep(delay);
  return client.trySend(key);
}

export async function probeRetryAfter(client: ProbeClient, options: RetryAfterOptions): Promise<RetryAfterFindings> {
  // Round 1: wait what the 429 says, then retry.
  const keyA = await options.nextKey();
  const a = await throttle(client, keyA, options.volley);
  const r429 = a.settled429;
  if (!r429) return { notTestable: `no 429 within ${a.volley.sent} back-to-back requests` };
  const findings: RetryAfterFindings = { rpcCode: r429.rpcCode ?? null };
  const value = r429.headers['retry-after'];
  const parsed = parseRetryAfter(value, r429.headers.date);
  if (value !== undefined) findings.value = value;
  if (!parsed.ok) return { ...findings, notTestable: `the 429's Retry-After is ${parsed.why}` };
  findings.form = parsed.form;
  findings.seconds = parsed.seconds;
  if (parsed.seconds > options.maxWaitS) return { ...findings, notTestable: `Retry-After asks for ${parsed.seconds} s, more than the ${options.maxWaitS} s this probe may wait (raise --max-time)` };

  const at = await sendAt(client, keyA, r429.receivedAt + parsed.seconds * 1000 + MARGIN_MS);
  if (!at) return { ...findings, notTestable: 'the request cap was reached' };
  findings.atWait = { value, seconds: parsed.seconds, waitedS: (at.sentAt - r429.receivedAt) / 1000, status: at.status };
  options.log(`retry-after: waited ${findings.atWait.waitedS.toFixed(2)} s (Retry-After: ${value}), retry answered ${at.status || 'nothing'}`);
  if (isThrottled(at)) {
    // How long does it really take? Retry every SEARCH_EVERY_MS (a refusal costs a token bucket nothing).
    const searchUntil = r429.receivedAt + Math.min(options.maxWaitS, 6 * parsed.seconds + 2) * 1000;
    let next = at.sentAt + SEARCH_EVERY_MS;
    while (next <= searchUntil) {
      const r = await sendAt(client, keyA, next);
      if (!r || !isThrottled(r)) {
        if (r && isOk(r)) findings.servedAfterS = (r.sentAt - r429.receivedAt) / 1000;
        break;
      }
      next += SEARCH_EVERY_MS;
    }
  }

  // Round 2: on a throttled key again, retry at half the wait.
  const keyB = await options.nextKey();
  const b = await throttle(client, keyB, options.volley);
  const b429 = b.settled429;
  const bParsed = parseRetryAfter(b429?.headers['retry-after'], b429?.headers.date);
  if (b429 && bParsed.ok) {
    const early = await sendAt(client, keyB, b429.receivedAt + (bParsed.seconds * 1000) / 2);
    if (early) {
      findings.early = { value: b429.headers['retry-after'], seconds: bParsed.seconds, waitedS: (early.sentAt - b429.receivedAt) / 1000, status: early.status };
      findings.overstates = isOk(early);
      options.log(`retry-after: retried after ${findings.early.waitedS.toFixed(2)} s (half of Retry-After: ${b429.headers['retry-after']}), answered ${early.status || 'nothing'}`);
    }
  }
  return findings;
}
