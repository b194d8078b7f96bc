import { request as undiciRequest } from 'undici';
import { bucketOf, pacer } from '../budget/pacer.js';
import { countExchange } from '../budget/tally.js';
import { markServiceFault, NotTestable } from '../verdict.js';
import type { Exchange, SseEvent } from './exchange.js';
import { keyLedger, requestLine, type InspectedReply, type KeySighting } from './key-sightings.js';
import { redact, redactHeaders } from './redact.js';
import { refuseRedirect } from './redirect.js';
import { createSseReader } from './sse-reader.js';

export interface WireRequest {
  method?: string;
  headers?: Record<string, string>;
  /** A value to JSON-encode, or raw text/bytes with `raw`. */
  json?: unknown;
  raw?: string | Uint8Array;
  /** Stop reading after this many ms; an SSE stream still open then is reported `closed: false`. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  /** Media type of Content-Type, lower-cased, without parameters. */
  mediaType: string;
  text: string;
  /** Parsed body for JSON replies (undefined when not JSON or unparsable). */
  json?: any;
  /** SSE replies: the events with arrival times, and their `data` parsed as JSON (undefined when not JSON). */
  events?: SseEvent[];
  messages?: any[];
  /** False when the body was still streaming at the deadline. */
  closed: boolean;
  headersAt: number;
  endAt: number;
}

export interface WireOptions {
  /**
   * Pace on the deployment's rate-limit fields and wait out 429s (default). Checks that study rate
   * limiting turn it off: they must see every 429 as sent.
   */
  pace?: boolean;
}

/**
 * The harness's HTTP client: undici, every exchange recorded with timings into a wire log, every secret
 * redacted in the record. SSE bodies are read incrementally so each event keeps its arrival time.
 * Every request is counted against what the run spent of the deployment.
 */
export class WireClient {
  /** Replies to this client's requests that carried a key the run holds (src/wire/key-sightings.ts). */
  readonly keySightings: KeySighting[] = [];

  constructor(
    readonly log: Exchange[],
    private readonly secrets: () => readonly string[],
    private readonly defaultTimeoutMs: number,
    readonly options: WireOptions = {},
  ) {}

  /**
   * Sends one request. A 429 is "waited out within a run-wide time budget and is never that check's
   * failure" (issue 12): retried after the time the deployment names; when the budget or the retries run
   * out the check becomes not testable, with the reason.
   */
  async request(url: string, req: WireRequest = {}): Promise<WireResponse> {
    if (this.options.pace === false) return this.once(url, req);
    const bucket = bucketOf(url, req.headers ?? {});
    for (let attempt = 0; ; attempt++) {
      await pacer.before(bucket);
      let res: WireResponse;
      try {
        res = await this.once(url, req);
      } catch (err) {
        // A kept-alive connection the server closed just as it was reused fails before any reply (undici does
        // not retry a POST): that is the connection's end, not the server's answer, so it is sent once more.
        if (attempt === 0 && isStaleConnection(err) && !req.signal?.aborted) continue;
        throw err;
      }
      const { again, limited } = await pacer.next(bucket, url, attempt, res.status, res.headers);
      if (limited) throw new NotTestable(`rate limited: ${limited}`);
      if (!again) return res;
      // Sent again once pacer.before has waited out the bucket the 429 held.
    }
  }

  private note(sighting: KeySighting | undefined): void {
    if (sighting) this.keySightings.push(sighting);
  }

  private async once(url: string, req: WireRequest): Promise<WireResponse> {
    const method = req.method ?? (req.json !== undefined || req.raw !== undefined ? 'POST' : 'GET');
    const headers: Record<string, string> = { ...req.headers };
    let body: string | Uint8Array | undefined = req.raw;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] ??= 'application/json';
    }
    // The keys this process learnt (bootstrap replies, other checks' fresh workspaces) are redacted too.
    let secrets = [...this.secrets(), ...keyLedger.redaction()];
    const record: Exchange = {
      request: { method, url: redact(url, secrets), headers: redactHeaders(lower(headers), secrets), ...(body !== undefined && { body: clip(redact(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'), secrets)) }) },
      startedAt: new Date().toISOString(),
    };
    this.log.push(record);
    const timeoutMs = req.timeoutMs ?? this.defaultTimeoutMs;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error('deadline')), timeoutMs);
    const outer = req.signal;
    const onOuter = () => abort.abort(outer?.reason);
    outer?.addEventListener('abort', onOuter);
    const started = performance.now();
    /** The reply, for the key sightings once it is recorded. */
    let inspected: InspectedReply | undefined;
    try {
      const res = await undiciRequest(url, { method: method as 'POST', headers, body, signal: abort.signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      const headersAt = performance.now() - started;
      const resHeaders: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) resHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      // undici's request never follows a redirect (it has no redirect interceptor here); one that must be refused
      // is the service's failure, recorded with the reply and thrown (src/wire/redirect.ts).
      const refusal = refuseRedirect(method, url, res.statusCode, resHeaders.location, secrets);
      if (refusal) {
        await res.body.dump().catch(() => {});
        record.response = { status: res.statusCode, headers: redactHeaders(resHeaders, secrets), closed: true, headersAt: round(headersAt), endAt: round(headersAt) };
        inspected = { url, request: requestLine(method, record.request.url, record.request.body), status: res.statusCode, headers: resHeaders, exchange: record };
        throw refusal;
      }
      const mediaType = (resHeaders['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
      let text = '';
      let closed = true;
      const events: SseEvent[] = [];
      const isSse = mediaType === 'text/event-stream';
      const reader = isSse ? createSseReader((e) => events.push({ at: performance.now() - started, ...e })) : undefined;
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body) text += reader ? reader.feed(chunk as Uint8Array) : decoder.decode(chunk as Uint8Array, { stream: true });
        text += reader ? reader.end() : decoder.decode();
      } catch (err) {
        if (!abort.signal.aborted) throw err;
        closed = false;
      }
      const endAt = performance.now() - started;
      const response: WireResponse = { status: res.statusCode, headers: resHeaders, mediaType, text, closed, headersAt, endAt };
      if (isSse) {
        response.events = events;
        response.messages = events.map((e) => tryJson(e.data));
      } else if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
        response.json = tryJson(text);
      }
      const sentText = typeof body === 'string' ? body : body === undefined ? undefined : Buffer.from(body).toString('utf8');
      countExchange(url, method, typeof body === 'string' ? body : undefined, res.statusCode, response);
      // A key this reply minted is known before the reply is recorded, so the record never holds it.
      const minted = keyLedger.learnFromReply(url, method, res.statusCode, response.json);
      if (minted.length > 0) secrets = [...this.secrets(), ...keyLedger.redaction()];
      record.response = {
        status: res.statusCode, headers: redactHeaders(resHeaders, secrets), closed, headersAt: round(headersAt), endAt: round(endAt),
        ...(isSse ? { events: events.map((e) => ({ ...e, at: round(e.at), data: clip(redact(e.data, secrets)) })) } : { body: clip(redact(text, secrets)) }),
      };
      inspected = {
        url, request: requestLine(method, record.request.url, record.request.body), requestBody: sentText, status: res.statusCode,
        headers: resHeaders, ...(isSse ? { events } : { body: text }), minted, exchange: record,
      };
      return response;
    } catch (err) {
      countExchange(url, method, undefined, 0, {});
      record.error = redact(err instanceof Error ? `${err.name}: ${err.message}` : String(err), secrets);
      // No reply, a reset, a deadline: the service's doing, judged as its failure (not the harness's error).
      throw markServiceFault(err);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
      // Outside the try: a fault in the inspection is the harness's own error, never the service's.
      if (inspected) this.note(keyLedger.inspect(inspected));
    }
  }
}

function isStaleConnection(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === 'UND_ERR_SOCKET' || e.code === 'ECONNRESET' || /other side closed/.test(e.message ?? '');
}

function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function tryJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Times in the wire log: milliseconds to a tenth. */
export const round = (ms: number) => Math.round(ms * 10) / 10;

/** Bodies in the wire log are cut here: enough to see what went wrong, small enough for reports. */
export const LOGGED_BODY_LIMIT = 4096;

/** A body or event as the wire log keeps it: cut at LOGGED_BODY_LIMIT, saying how much was left out. */
export function clip(text: string): string {
  return text.length <= LOGGED_BODY_LIMIT ? text : `${text.slice(0, LOGGED_BODY_LIMIT)}… [${text.length - LOGGED_BODY_LIMIT} more characters]`;
}
