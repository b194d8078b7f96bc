import { createParser } from 'eventsource-parser';
import { clip, round } from '../wire/client.js';
import type { Exchange, SseEvent } from '../wire/exchange.js';
import { redact, redactHeaders } from '../wire/redact.js';
import { noRedirectFetch } from '../wire/redirect.js';
import { poolFetch } from '../wire/connections.js';
import { bucketOf, OUTSIDE_A_CHECK, type Throttle, type WaitRoom } from '../budget/pacer.js';
import { requestLine } from '../wire/key-sightings.js';
import type { RunState } from '../engine/run-state.js';

/**
 * The recording fetch of the in-process SDK interop checks (suites/interop.suite.ts): the official SDK client
 * sends its HTTP through it, so a failure carries the exchanges as evidence, like any other check's wire log.
 * The child-process clients of the interop matrix are recorded by src/interop/recording-proxy.ts instead.
 */

export interface RecordingFetch {
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response>;
  /** Waits (bounded) for the recorded copies to end; streams still open then are cut and marked `closed: false`. */
  settle(ms?: number): Promise<void>;
  /**
   * The throttle a request ended on (a 429 beyond the run's wait budget or the check's deadline, or 429 after
   * 429): the SDK then saw the 429, and the check fails with this reason rather than with what the SDK made of
   * it. Undefined while every 429 was waited out.
   */
  throttled(): Throttle | undefined;
}

/** A fetch for the SDK's transport that records every exchange into `log` (the check's wire log), `secrets` redacted; paced and counted by `run`. */
export function recordingFetch(run: RunState, log: Exchange[], secrets: readonly string[], room: () => WaitRoom = () => OUTSIDE_A_CHECK): RecordingFetch {
  const reading = new Set<Promise<void>>();
  const stops = new Set<() => void>();
  const refusing = noRedirectFetch(poolFetch(run.pool), () => secrets);
  const recorded = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const started = performance.now();
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const record: Exchange = {
      request: { method: init?.method ?? 'GET', url: redact(String(input), secrets), headers: redactHeaders(headers, secrets), ...(body !== undefined && { body: clip(redact(body, secrets)) }) },
      startedAt: new Date().toISOString(),
    };
    log.push(record);
    let res: Response;
    try {
      // The SDK transport would follow a redirect with every header, the key included: never followed here.
      res = await refusing(input, init);
    } catch (err) {
      record.error = redact(err instanceof Error ? `${err.name}: ${err.message}` : String(err), secrets);
      throw err;
    }
    const headersAt = round(performance.now() - started);
    const response: NonNullable<Exchange['response']> = { status: res.status, headers: redactHeaders(Object.fromEntries(res.headers.entries()), secrets), closed: true, headersAt, endAt: headersAt };
    record.response = response;
    const inspect = (text: string) => run.keys.inspect({ url: String(input), request: requestLine(record.request.method, record.request.url, record.request.body), requestBody: body, status: res.status, headers: Object.fromEntries(res.headers.entries()), body: text, exchange: record });
    if (!res.body) {
      inspect('');
      return res;
    }
    // A copy of the body is read alongside the SDK's, so SSE events keep their arrival times.
    const reader = res.clone().body!.getReader();
    const sse = (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    let done = false;
    const stop = () => {
      if (done) return;
      response.closed = false;
      void reader.cancel().catch(() => {});
    };
    stops.add(stop);
    const task = (async () => {
      const decoder = new TextDecoder();
      const events: SseEvent[] = [];
      const parser = sse ? createParser({ onEvent: (e) => events.push({ at: round(performance.now() - started), data: clip(redact(e.data, secrets)), ...(e.event && { event: e.event }), ...(e.id && { id: e.id }) }) }) : undefined;
      let text = '';
      try {
        for (;;) {
          const { done: end, value } = await reader.read();
          if (end) break;
          const piece = decoder.decode(value, { stream: true });
          text += piece;
          parser?.feed(piece);
        }
      } catch {
        // cancelled by stop(), or the connection broke: what arrived is kept
      }
      done = true;
      response.endAt = round(performance.now() - started);
      if (sse) response.events = events;
      else response.body = clip(redact(text, secrets));
      inspect(text);
    })();
    reading.add(task);
    return res;
  };
  // Like every check's wire client (src/wire/client.ts): a 429 is waited out as the deployment says, within
  // the run's wait budget, and the request sent again; the SDK sees it only when the harness gives up.
  let gaveUp: Throttle | undefined;
  const paced = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const replayable = init?.body === undefined || init.body === null || typeof init.body === 'string';
    const bucket = bucketOf(String(input), Object.fromEntries(new Headers(init?.headers).entries()));
    for (let attempt = 0; ; attempt++) {
      await run.pacer.before(bucket, room());
      const res = await recorded(input, init);
      const { again, throttled } = await run.pacer.next(bucket, String(input), attempt, res.status, Object.fromEntries(res.headers.entries()), room());
      if (res.status !== 429 || !replayable) return res;
      if (!again) {
        gaveUp = throttled;
        return res;
      }
      await res.body?.cancel().catch(() => {});
    }
  };
  return {
    fetch: paced,
    throttled: () => gaveUp,
    async settle(ms = 1_000) {
      await Promise.race([Promise.all(reading), new Promise((r) => setTimeout(r, ms))]);
      for (const stop of stops) stop();
    },
  };
}
