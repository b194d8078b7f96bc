import { Agent as HttpAgent, request as httpRequest, createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { bucketOf } from '../budget/pacer.js';
import type { RunState } from '../engine/run-state.js';
import { clip, round } from '../wire/client.js';
import { isStaleConnection } from '../wire/connections.js';
import type { Exchange, SseEvent } from '../wire/exchange.js';
import { redact, redactHeaders } from '../wire/redact.js';
import { isRedirect } from '../wire/redirect.js';
import { createSseReader } from '../wire/sse-reader.js';
import { requestLine } from '../wire/key-sightings.js';

/**
 * A loopback forwarder between one SDK client (a child process) and the target, recording every exchange the
 * client makes, so a failing matrix row carries its wire log like any other check. It is as transparent as a
 * forwarder can be: the response's status, headers and body chunks go back as they arrive (an event split
 * across chunks stays split), nothing is followed, and a redirect goes back without its Location (no client
 * can carry the key elsewhere; the origin rows judge the redirect itself). Only the rate budget is the harness's business: a 429 is waited out
 * within the run's wait budget and the request sent again (it was not processed), so a client run side by
 * side with seven others is not failed for a burst of the harness's own making.
 */

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

export interface RecordingProxy {
  /** The target's endpoint as reached through the proxy (same path and query). */
  endpoint: string;
  /** Every exchange, in order of sending (keys redacted). */
  log: Exchange[];
  /** Requests sent to the target, retries after a 429 included (the pacer counts the 429s waited out). */
  counts: { requests: number };
  /** The first throttle a request ended on (a 429 the harness could not wait out, passed on to the client). */
  throttled(): string | undefined;
  close(): Promise<void>;
}

function plainHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts a proxy for `mcpUrl` on 127.0.0.1; `secrets` are redacted from every record. */
export async function startRecordingProxy(run: RunState, mcpUrl: string, secrets: () => readonly string[]): Promise<RecordingProxy> {
  const upstream = new URL(mcpUrl);
  const log: Exchange[] = [];
  const counts = { requests: 0 };
  let throttled: string | undefined;
  const open = new Set<ServerResponse>();

  // The proxy's own kept-alive connections, closed with it (node's global agent keeps them past the run), idle
  // for at most 2 s: node's servers close an idle connection after 5 s, the same as the global agent's timeout,
  // and on a busy machine that race is lost often. A request that met a dead one goes once more on a new connection.
  const https = upstream.protocol === 'https:';
  const agent = https ? new HttpsAgent({ keepAlive: true, timeout: 2_000 }) : new HttpAgent({ keepAlive: true, timeout: 2_000 });
  const send = (method: string, path: string, headers: Record<string, string>, body: Buffer, fresh: boolean) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const make = https ? httpsRequest : httpRequest;
      const req = make({ protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method, path, headers: { ...headers, host: upstream.host }, agent: fresh ? false : agent }, resolve);
      req.on('error', reject);
      req.end(body.length > 0 ? body : undefined);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const headers = Object.fromEntries(Object.entries(plainHeaders(req.headers)).filter(([k]) => !HOP_BY_HOP.has(k)));
    const body = await readBody(req);
    const bucket = bucketOf(mcpUrl, headers);
    let stale = false;
    for (let attempt = 0; ; attempt += 1) {
      await run.pacer.before(bucket);
      const started = performance.now();
      const record: Exchange = {
        request: { method, url: redact(new URL(path, upstream).href, secrets()), headers: redactHeaders(headers, secrets()), ...(body.length > 0 && { body: clip(redact(body.toString('utf8'), secrets())) }) },
        startedAt: new Date().toISOString(),
      };
      log.push(record);
      counts.requests += 1;
      run.tally.add({ requests: 1 });
      let up: IncomingMessage;
      try {
        up = await send(method, path, headers, body, stale);
      } catch (err) {
        record.error = redact(`${(err as Error).name}: ${(err as Error).message}`, secrets());
        if (!stale && isStaleConnection(err)) {
          stale = true;
          continue;
        }
        res.destroy();
        return;
      }
      const upHeaders = plainHeaders(up.headers);
      const headersAt = round(performance.now() - started);
      const response: NonNullable<Exchange['response']> = { status: up.statusCode ?? 0, headers: redactHeaders(upHeaders, secrets()), headersAt, endAt: headersAt, closed: true };
      record.response = response;
      const inspect = (text: string) => run.keys.inspect({
        url: new URL(path, upstream).href, request: requestLine(method, record.request.url, record.request.body), requestBody: body.toString('utf8'),
        status: response.status, headers: upHeaders, body: text, exchange: record, by: 'the interop matrix (an SDK client, through its recording proxy)',
      });
      const { again, throttled: stop } = await run.pacer.next(bucket, mcpUrl, attempt, response.status, upHeaders);
      if (again) {
        // Not passed on, but a reply all the same: a key in its body is the service's failure.
        inspect((await readBody(up)).toString('utf8'));
        continue;
      }
      throttled ??= stop?.message;
      const passed = Object.entries(upHeaders).filter(([k]) => !HOP_BY_HOP.has(k) && !(isRedirect(response.status) && k === 'location'));
      res.writeHead(response.status, Object.fromEntries(passed));
      res.flushHeaders();
      const sse = (upHeaders['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
      const events: SseEvent[] = [];
      const reader = createSseReader((e) => events.push({ at: round(performance.now() - started), data: clip(redact(e.data, secrets())), ...(e.event && { event: e.event }), ...(e.id && { id: e.id }) }));
      let text = '';
      up.on('data', (chunk: Buffer) => {
        res.write(chunk);
        text += reader.feed(chunk);
      });
      // The client hung up (closed its transport, or was killed at its deadline): stop reading for it.
      res.on('close', () => {
        if (!res.writableEnded) {
          response.closed = false;
          up.destroy();
        }
      });
      await new Promise<void>((resolve) => {
        up.on('end', resolve);
        up.on('error', resolve);
        up.on('close', resolve);
      });
      text += reader.end();
      response.endAt = round(performance.now() - started);
      if (sse) response.events = events;
      else response.body = clip(redact(text, secrets()));
      inspect(text);
      res.end();
      return;
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  // Only the client ends an idle kept-alive connection: a proxy that closes it at 5 s (node's default) races the
  // client's own timer, and a starved client loses that race, reuses the closed connection and gets "fetch failed"
  // for a request that never reached the proxy (issue 33). close() ends every connection the proxy holds.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}${upstream.pathname}${upstream.search}`,
    log,
    counts,
    throttled: () => throttled,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
