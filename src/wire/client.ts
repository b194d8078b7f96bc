import { request as undiciRequest, type Dispatcher } from 'undici';
import { bucketOf, OUTSIDE_A_CHECK, type WaitRoom } from '../budget/pacer.js';
import type { RunState } from '../engine/run-state.js';
import { markHarnessCause, markServiceFault, TargetLost, Throttled } from '../engine/verdict.js';
import { stalledMs } from '../kit/harness-load.js';
import { isConnectionError } from './target-liveness.js';
import { createBodyDecoder, withoutBom, type BodyBytes } from './body-decoder.js';
import type { Exchange, SseEvent } from './exchange.js';
import { requestLine, type InspectedReply, type KeySighting } from './key-sightings.js';
import { redact, redactHeaders } from './redact.js';
import { refuseRedirect } from './redirect.js';
import { isStaleConnection, onFreshConnection } from './connections.js';
import { createSseReader } from './sse-reader.js';

export interface WireRequest {
  method?: string;
  headers?: Record<string, string>;
  /** A value to JSON-encode, or raw text/bytes with `raw`. */
  json?: unknown;
  raw?: string | Uint8Array;
  /** Stop reading after this many ms; an SSE stream still open then is reported `closed: false`. */
  timeoutMs?: number;
  /**
   * An SSE reply to a request with an id is read up to the response to that id (every id of a batch), then this
   * many ms more (default 0), and no further: a stream the server keeps open after its result costs no check its
   * deadline. Only the rows about what follows the result (it ends; nothing comes after it) read on, within
   * their own bound. A stream left unread is reported `closed: false` with `readUntil: 'response'`.
   */
  afterResponseMs?: number;
  signal?: AbortSignal;
  /** Each SSE event's JSON-RPC message (undefined when its data is not JSON) as it arrives: a stream read while it stays open. */
  onEvent?: (message: unknown) => void;
  /**
   * A 429 is this request's answer, not a throttle to wait out: the description demands another answer here
   * (401 for a missing or refused credential), so a 429 is judged by the check as it came.
   */
  throttleIsAnswer?: boolean;
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
  /**
   * What decoding the raw bytes hid (src/wire/body-decoder.ts): a leading BOM (removed from `text`, and from
   * an event's `data` before it is parsed) and bytes that are not UTF-8 (U+FFFD in `text`).
   */
  bytes?: BodyBytes;
  /** False when the body was still streaming at the deadline, or when reading stopped at the response. */
  closed: boolean;
  /** 'response': reading stopped `afterResponseMs` after the response, with the stream still open. */
  readUntil?: 'response';
  headersAt: number;
  endAt: number;
}

export interface WireOptions {
  /**
   * Pace on the deployment's rate-limit fields and wait out 429s (default). Checks that study rate
   * limiting turn it off: they must see every 429 as sent.
   */
  pace?: boolean;
  /** When the check that owns this client must have judged (performance.now() time): a 429 is waited out only within it. */
  deadlineAt?: number;
  /** The check's whole deadline in ms, for the message of a throttle beyond it. */
  deadlineMs?: number;
  /** Whose deadline it is (`this check` unless said), for that message. */
  deadlineOwner?: string;
  /** Aborts every request of the client: its check's deadline passed. */
  signal?: AbortSignal;
  /** The run the client sends for: its pacer, pool, id space, key ledger and tally (src/engine/run-state.ts). */
  run: RunState;
  /** A request's deadline when none is given, if not the run's (`run.settings.timeoutMs`). */
  timeoutMs?: number;
}

/**
 * The harness's HTTP client: undici, every exchange recorded with timings into a wire log, every secret
 * redacted in the record. SSE bodies are read incrementally so each event keeps its arrival time.
 * Every request is counted against what the run spent of the deployment.
 */
export class WireClient {
  /** Replies to this client's requests that carried a key the run holds (src/wire/key-sightings.ts). */
  readonly keySightings: KeySighting[] = [];
  /** The run it sends for. */
  readonly run: RunState;
  /** A request's deadline when the request gives none: the option, else the run's. */
  readonly defaultTimeoutMs: number;

  constructor(
    readonly log: Exchange[],
    private readonly secrets: () => readonly string[],
    readonly options: WireOptions,
  ) {
    this.run = options.run;
    this.defaultTimeoutMs = options.timeoutMs ?? options.run.settings.timeoutMs;
  }

  /**
   * Sends one request. A 429 is waited out as the deployment says, within the run-wide wait budget and the
   * check's deadline, and the request sent again; when it cannot be, the check fails as throttled
   * (`Throttled`, src/budget/pacer.ts): the service kept it from judging.
   */
  async request(url: string, req: WireRequest = {}): Promise<WireResponse> {
    if (this.options.pace === false) return this.sent(url, req);
    const bucket = bucketOf(url, req.headers ?? {});
    for (let attempt = 0; ; attempt++) {
      await this.run.pacer.before(bucket, this.waitRoom());
      const res = await this.sent(url, req);
      if (req.throttleIsAnswer) {
        this.run.pacer.learn(bucket, res.status, res.headers);
        return res;
      }
      const { again, throttled } = await this.run.pacer.next(bucket, url, attempt, res.status, res.headers, this.waitRoom());
      if (throttled) throw new Throttled(throttled.message, { status: res.status, ...(throttled.retryAfter !== undefined && { 'retry-after': throttled.retryAfter }), attempts: attempt + 1 });
      if (!again) return res;
      // Sent again once the pacer's `before` has waited out the bucket the 429 held.
    }
  }

  /**
   * Sends one request through the run's pool. A kept-alive connection the server closed as it was reused fails
   * before any reply (undici does not retry a POST): the connection's end, not the server's answer, so the
   * request is sent once more, on a connection of its own (src/wire/connections.ts says why not the pool's).
   */
  private async sent(url: string, req: WireRequest): Promise<WireResponse> {
    try {
      return await this.once(url, req, this.run.pool);
    } catch (err) {
      if (!isStaleConnection(err) || req.signal?.aborted || this.options.signal?.aborted || passedDeadline(err) || err instanceof TargetLost) throw err;
      return onFreshConnection(url, (dispatcher) => this.once(url, req, dispatcher));
    }
  }

  /**
   * What this client's check may still wait for one request. A client without a deadline (work shared by
   * several checks) still waits no longer than OUTSIDE_A_CHECK allows for one request: no wait outlasts a check.
   */
  waitRoom(): WaitRoom {
    const { deadlineAt, deadlineMs, deadlineOwner } = this.options;
    if (deadlineAt === undefined) return OUTSIDE_A_CHECK;
    return { leftMs: deadlineAt - performance.now(), ...(deadlineMs !== undefined && { deadlineMs }), ...(deadlineOwner && { owner: deadlineOwner }) };
  }

  /** Another client of the same check (its own log and secrets): the same pacing and deadline. */
  sibling(log: Exchange[], secrets: () => readonly string[], options: Partial<WireOptions> = {}): WireClient {
    return new WireClient(log, secrets, { ...this.options, ...options });
  }

  private note(sighting: KeySighting | undefined): void {
    if (sighting) this.keySightings.push(sighting);
  }

  private async once(url: string, req: WireRequest, dispatcher: Dispatcher): Promise<WireResponse> {
    const method = req.method ?? (req.json !== undefined || req.raw !== undefined ? 'POST' : 'GET');
    const headers: Record<string, string> = { ...req.headers };
    let body: string | Uint8Array | undefined = req.raw;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] ??= 'application/json';
    }
    const sentText = body === undefined || typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
    // The keys this run learnt (bootstrap replies, other checks' fresh workspaces) are redacted too.
    let secrets = [...this.secrets(), ...this.run.keys.redaction()];
    const record: Exchange = {
      request: { method, url: redact(url, secrets), headers: redactHeaders(lower(headers), secrets), ...(sentText !== undefined && { body: keptRedacted(sentText, secrets) }) },
      startedAt: new Date().toISOString(),
    };
    this.log.push(record);
    const timeoutMs = req.timeoutMs ?? this.defaultTimeoutMs;
    const abort = new AbortController();
    let deadlinePassed = false;
    const timer = setTimeout(() => {
      deadlinePassed = true;
      abort.abort(new Error('deadline'));
    }, timeoutMs);
    const { signal: owner } = this.options;
    const outer = req.signal && owner ? AbortSignal.any([req.signal, owner]) : req.signal ?? owner;
    const onOuter = () => abort.abort(outer?.reason);
    outer?.addEventListener('abort', onOuter);
    const started = performance.now();
    /** The reply, for the key sightings once it is recorded. */
    let inspected: InspectedReply | undefined;
    try {
      const res = await undiciRequest(url, { dispatcher, method: method as 'POST', headers, body, signal: abort.signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
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
      let readUntil: 'response' | undefined;
      const events: SseEvent[] = [];
      const isSse = mediaType === 'text/event-stream';
      // The ids whose responses end what a check needs of the stream (none: read to the end or the deadline).
      const awaited = isSse ? new Set(requestIdsOf(req.json)) : new Set<unknown>();
      const readEnough = new Error('read up to the response');
      const onEvent = (e: { data: string }) => {
        if (awaited.size === 0) return;
        const m = tryJson(withoutBom(e.data));
        if (!m || typeof m !== 'object' || Array.isArray(m) || 'method' in m || !('result' in m || 'error' in m)) return;
        if (!awaited.delete(m.id) || awaited.size > 0) return;
        const after = req.afterResponseMs ?? 0;
        if (after <= 0) abort.abort(readEnough);
        else setTimeout(() => abort.abort(readEnough), after).unref();
      };
      const reader = isSse ? createSseReader((e) => {
        events.push({ at: performance.now() - started, ...e });
        onEvent(e);
        req.onEvent?.(tryJson(withoutBom(e.data)));
      }) : undefined;
      const decoder = createBodyDecoder();
      try {
        for await (const chunk of res.body) {
          text += reader ? reader.feed(chunk as Uint8Array) : decoder.decode(chunk as Uint8Array);
          if (abort.signal.reason === readEnough) break;
        }
        if (abort.signal.reason === readEnough) {
          closed = false;
          readUntil = 'response';
          res.body.destroy();
        } else {
          text += reader ? reader.end() : decoder.decode();
        }
      } catch (err) {
        if (!abort.signal.aborted) throw err;
        closed = false;
        if (abort.signal.reason === readEnough) readUntil = 'response';
      }
      const endAt = performance.now() - started;
      const bytes = reader ? reader.bytes() : decoder.facts();
      const response: WireResponse = { status: res.statusCode, headers: resHeaders, mediaType, text, closed, ...(readUntil && { readUntil }), headersAt, endAt, bytes };
      if (isSse) {
        response.events = events;
        // An event's data is a JSON text: a BOM before it is parsed past and judged by its own row (wire-json-no-bom).
        response.messages = events.map((e) => tryJson(withoutBom(e.data)));
      } else if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
        response.json = tryJson(text);
      }
      this.run.tally.countExchange(url, method, typeof body === 'string' ? body : undefined, res.statusCode, response);
      // A key this reply minted is known before the reply is recorded, so the record never holds it.
      const minted = this.run.keys.learnFromReply(url, method, res.statusCode, response.json);
      if (minted.length > 0) secrets = [...this.secrets(), ...this.run.keys.redaction()];
      record.response = {
        status: res.statusCode, headers: redactHeaders(resHeaders, secrets), closed, ...(readUntil && { readUntil }), headersAt: round(headersAt), endAt: round(endAt),
        ...((bytes.bom || !bytes.utf8) && { bytes }),
        ...(isSse ? { events: events.map((e) => ({ ...e, at: round(e.at), data: keptRedacted(e.data, secrets) })) } : { body: keptRedacted(text, secrets) }),
      };
      this.run.serverErrors.note(url, method, sentText, res.statusCode, record);
      inspected = {
        url, request: requestLine(method, record.request.url, record.request.body), requestBody: sentText, status: res.statusCode,
        headers: resHeaders, ...(isSse ? { events } : { body: text }), minted, exchange: record,
      };
      return response;
    } catch (err) {
      this.run.tally.countExchange(url, method, undefined, 0, {});
      record.error = redact(err instanceof Error ? `${err.name}: ${err.message}` : String(err), secrets);
      // A target that accepts no connection any more went away: nothing of this check can be judged.
      if (!abort.signal.aborted && isConnectionError(err) && await this.run.liveness.gone(url)) throw new TargetLost(`${method} ${new URL(url).pathname} at ${record.startedAt}: ${record.error}`);
      // The request's own deadline (not the check's): callers that chose it may judge it apart (passedDeadline).
      const code = (err as { code?: unknown }).code;
      if (deadlinePassed || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
        markDeadline(err);
        // Its deadline passed while the harness's own event loop was held: the reply may have come in time.
        const held = stalledMs(started);
        if (held >= STARVED_SHARE * timeoutMs) markHarnessCause(err, `not judged: the request's deadline of ${timeoutMs} ms passed while the harness's own event loop was held ${Math.round(held)} ms of it (its machine was starved), so a reply in time could not have been read`);
      }
      // No reply, a reset, a deadline: the service's doing, judged as its failure (not the harness's error).
      throw markServiceFault(err);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
      // Outside the try: a fault in the inspection is the harness's own error, never the service's.
      if (inspected) this.note(this.run.keys.inspect(inspected));
    }
  }
}

const DEADLINE = Symbol('request deadline');

/** The share of a request's deadline the harness's event loop must have been held for the deadline to be the harness's doing. */
const STARVED_SHARE = 0.25;

function markDeadline(err: unknown): void {
  if (err && typeof err === 'object') Object.defineProperty(err, DEADLINE, { value: true });
}

/** Whether a request failed because its own deadline (`timeoutMs`) passed before the reply came (or ended). */
export function passedDeadline(err: unknown): boolean {
  return typeof err === 'object' && err !== null && DEADLINE in err;
}


/** The ids of the requests in a JSON-RPC body (one message or a batch): what its replies answer. */
function requestIdsOf(body: unknown): unknown[] {
  const isRequest = (m: any) => m !== null && typeof m === 'object' && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number');
  return (Array.isArray(body) ? body : [body]).filter(isRequest).map((m: any) => m.id);
}

/** Header names lower-cased. */
export function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The parsed JSON text, or undefined when it does not parse. */
export function tryJson(text: string): any {
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

/**
 * A body or event as the wire log keeps it, redacted: only the part the log keeps is searched for secrets
 * (a tools/list or a stream may be many times the limit), with a margin longer than any secret, so that none
 * is cut in half at the limit and half of it kept.
 */
export function keptRedacted(text: string, secrets: readonly string[]): string {
  const margin = Math.max(1024, ...secrets.map((x) => 4 * x.length)); // a secret's longest spelling (percent-encoded) stays within 4x
  if (text.length <= LOGGED_BODY_LIMIT + margin) return clip(redact(text, secrets));
  return `${redact(text.slice(0, LOGGED_BODY_LIMIT + margin), secrets).slice(0, LOGGED_BODY_LIMIT)}… [${text.length - LOGGED_BODY_LIMIT} more characters]`;
}
