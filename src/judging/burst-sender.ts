import { request as undiciRequest, type Dispatcher } from 'undici';
import type { McpSession } from '../mcp/mcp-session.js';
import { speakRevision } from '../mcp/revision-wire.js';
import { keptRedacted, lower, round, tryJson, type WireResponse } from '../wire/client.js';
import { isStaleConnection, onFreshConnection } from '../wire/connections.js';
import type { Exchange } from '../wire/exchange.js';
import { requestLine } from '../wire/key-sightings.js';
import { redact, redactHeaders } from '../wire/redact.js';

/**
 * One request of a rate-limit burst, sent for its status at the least cost to the harness. A burst has to send
 * faster than the declared rate, and the wire client's full record of every reply (its JSON parsed, its body
 * redacted into a log, some 1 ms of a core per tools/list) kept a starved 2-core machine below 200/s (issue 33).
 * What every request of the run owes is still paid: it is counted against the run's budget, its reply is shown
 * to the run's key ledger (a key echoed in a reply is a sighting, src/wire/key-sightings.ts), and a pooled
 * connection found dead is replaced as the wire client does (src/wire/connections.ts). The burst keeps the
 * record of the few replies it shows (the first 200, the 429s): `record()` redacts them as the wire client would.
 * Any failure other than a dead connection is sent once more through `fallback` (the session's wire client),
 * which records it and judges it as for every other request.
 */
export interface BurstReply {
  status: number;
  /** The reply's body and headers, and its record, made only when asked for. */
  record(): { res: WireResponse; exchange: Exchange };
  /** From sending to the end of the body, in ms. */
  ms: number;
}

export function burstSender(session: McpSession, method: string, secrets: () => readonly string[], fallback: () => McpSession): () => Promise<BurstReply> {
  const url = session.target.mcpUrl;
  const timeoutMs = session.http.defaultTimeoutMs;
  const { run } = session.http;
  return async () => {
    const message = { jsonrpc: '2.0', id: run.ids.next(), method };
    // As McpSession.post speaks it: the session's revision headers and envelope, its key.
    const headers = session.headers({}, message);
    const body = JSON.stringify(speakRevision(session.revision, message, { ...session.target.headers }).body);
    const startedAt = new Date();
    const started = performance.now();
    const send = async (dispatcher: Dispatcher) => {
      const res = await undiciRequest(url, { dispatcher, method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      const headersAt = performance.now() - started;
      return { status: res.statusCode, rawHeaders: res.headers, text: await res.body.text(), headersAt, endAt: performance.now() - started };
    };
    let got: Awaited<ReturnType<typeof send>>;
    try {
      try {
        got = await send(run.pool);
      } catch (err) {
        if (!isStaleConnection(err)) throw err;
        got = await onFreshConnection(url, send);
      }
    } catch {
      // Not a reply: the wire client sends it again, records the exchange and judges the failure (a reset, a timeout, a target gone).
      const again = fallback();
      const res = await again.request(method);
      const exchange = again.http.log.at(-1)!;
      return { status: res.status, ms: res.endAt, record: () => ({ res, exchange }) };
    }
    run.tally.countExchange(url, 'POST', body, got.status, {});
    const resHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(got.rawHeaders)) if (v !== undefined) resHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    let recorded: { res: WireResponse; exchange: Exchange } | undefined;
    const record = () => {
      if (recorded) return recorded;
      const hidden = [...secrets(), ...run.keys.redaction()];
      const mediaType = (resHeaders['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
      const res: WireResponse = { status: got.status, headers: resHeaders, mediaType, text: got.text, closed: true, headersAt: got.headersAt, endAt: got.endAt };
      if (mediaType === 'application/json' || mediaType.endsWith('+json')) res.json = tryJson(got.text);
      const exchange: Exchange = {
        request: { method: 'POST', url: redact(url, hidden), headers: redactHeaders(lower(headers), hidden), body: keptRedacted(body, hidden) },
        startedAt: startedAt.toISOString(),
        response: { status: got.status, headers: redactHeaders(resHeaders, hidden), closed: true, headersAt: round(got.headersAt), endAt: round(got.endAt), body: keptRedacted(got.text, hidden) },
      };
      return (recorded = { res, exchange });
    };
    // Every reply of the target is looked through for a key it should not carry; the record only if one did.
    run.keys.inspect({
      url, requestBody: body, status: got.status, headers: resHeaders, body: got.text,
      get request() {
        return requestLine('POST', redact(url, secrets()), body);
      },
      get exchange() {
        return record().exchange;
      },
    });
    return { status: got.status, ms: got.endAt, record };
  };
}
