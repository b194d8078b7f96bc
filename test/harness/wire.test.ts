import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunState } from '../../src/engine/run-state.js';
import { fill, } from '../../src/profile/profile.js';
import { jsonPointer, McpSession } from '../../src/mcp/mcp-session.js';
import { WireClient } from '../../src/wire/client.js';
import type { Exchange } from '../../src/wire/exchange.js';
import { redact, redactHeaders } from '../../src/wire/redact.js';

const KEY = 'cnv_live_' + 'A1b2C3d4'.repeat(5);

describe('redaction', () => {
  it('removes every secret from text and headers', () => {
    // Each secret has one alias for the run: equal values stay visibly equal, different ones different.
    expect(redact(`key=${KEY}&again=${KEY}`, [KEY])).toMatch(/^key=(<key#\d+>)&again=\1$/);
    const other = KEY.replace('A1', 'Z9');
    expect(redact(`${KEY} ${other}`, [KEY, other])).toMatch(/^(<key#\d+>) (?!\1)<key#\d+>$/);
    expect(redactHeaders({ authorization: `Bearer ${KEY}`, 'x-echo': KEY }, [KEY])).toEqual({ authorization: 'Bearer [REDACTED 49 chars]', 'x-echo': redact(KEY, [KEY]) });
    expect(redactHeaders({ authorization: `Bearer ${KEY.toUpperCase()}` }, [KEY]).authorization).toBe('Bearer [REDACTED 49 chars]');
    expect(redact(`xyz_live_${'Q'.repeat(30)}`, [])).toBe('xyz_live_[REDACTED]');
  });
});

describe('profile helpers', () => {
  it('fills {{vars}} keeping the type of whole-value placeholders', () => {
    expect(fill({ a: '{{n}}', b: 'id-{{n}}', c: ['{{s}}'] }, { n: 7, s: 'x' })).toEqual({ a: 7, b: 'id-7', c: ['x'] });
  });
  it('reads JSON pointers', () => {
    expect(jsonPointer({ block: { id: 'b1' }, 'a/b': 1 }, '/block/id')).toBe('b1');
    expect(jsonPointer({ 'a/b': 1 }, '/a~1b')).toBe(1);
  });
});

describe('wire client', () => {
  let port: number;
  let limitedHits = 0;
  const server = createServer((req, res) => {
    if (req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"n":1}\n\n');
      setTimeout(() => {
        res.write(': comment\r\ndata: {"n":2}\r\n\r\n');
        res.end();
      }, 60);
      return;
    }
    if (req.url === '/limited') {
      limitedHits += 1;
      if (limitedHits % 2 === 1) {
        res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
    }
    if (req.url === '/bom') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), Buffer.from('{"ok":true}')]));
      return;
    }
    if (req.url === '/latin1') {
      res.writeHead(200, { 'content-type': 'application/json; charset=iso-8859-1' });
      res.end(Buffer.from('{"name":"caf\u00e9"}', 'latin1'));
      return;
    }
    if (req.url === '/open') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
      return; // never ends
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ echo: req.headers.authorization }));
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('records the exchange with the key redacted, and parses JSON', async () => {
    const log: Exchange[] = [];
    const client = new WireClient(log, () => [KEY], { timeoutMs: 2000, run: new RunState() });
    const res = await client.request(`http://127.0.0.1:${port}/json`, { headers: { Authorization: `Bearer ${KEY}` }, json: { a: 1 } });
    expect(res.json).toEqual({ echo: `Bearer ${KEY}` });
    expect(JSON.stringify(log)).not.toContain(KEY);
    expect(log[0]!.request.headers.authorization).toBe('Bearer [REDACTED 49 chars]');
    expect(log[0]!.response!.status).toBe(200);
  });

  it('keeps what decoding hides: a JSON body\'s BOM (parsed past, recorded) and bytes that are not UTF-8', async () => {
    const log: Exchange[] = [];
    const client = new WireClient(log, () => [], { timeoutMs: 2000, run: new RunState() });
    const bom = await client.request(`http://127.0.0.1:${port}/bom`);
    expect(bom.json).toEqual({ ok: true });
    expect(bom.bytes).toEqual({ bom: true, utf8: true });
    const latin1 = await client.request(`http://127.0.0.1:${port}/latin1`);
    expect(latin1.bytes).toEqual({ bom: false, utf8: false });
    expect(latin1.json).toEqual({ name: 'caf\uFFFD' });
    const plain = await client.request(`http://127.0.0.1:${port}/json`, { json: {} });
    expect(plain.bytes).toEqual({ bom: false, utf8: true });
    // The wire log says so where it matters, and only there.
    expect(log.map((e) => e.response?.bytes)).toEqual([{ bom: true, utf8: true }, { bom: false, utf8: false }, undefined]);
  });

  it('reads SSE events with arrival times, CRLF and comments included', async () => {
    const res = await new WireClient([], () => [], { timeoutMs: 2000, run: new RunState() }).request(`http://127.0.0.1:${port}/sse`);
    expect(res.messages).toEqual([{ n: 1 }, { n: 2 }]);
    expect(res.events!.map((e) => e.event)).toEqual(['message', undefined]);
    expect(res.bytes).toEqual({ bom: false, utf8: true });
    expect(res.events![1]!.at - res.events![0]!.at).toBeGreaterThanOrEqual(40);
    expect(res.closed).toBe(true);
  });

  it('the wire client waits out a 429 as Retry-After says and sends again, recording both exchanges, unless made not to pace', async () => {
    const log: Exchange[] = [];
    const target = { mcpUrl: `http://127.0.0.1:${port}/limited`, headers: {}, timeoutMs: 2000 } as never;
    const res = await new McpSession(new WireClient(log, () => [], { timeoutMs: 2000, run: new RunState() }), target).request('ping');
    expect(res.status).toBe(200);
    expect(log.map((e) => e.response?.status)).toEqual([429, 200]);
    const raw = await new McpSession(new WireClient([], () => [], { timeoutMs: 2000, pace: false, run: new RunState() }), target).request('ping');
    expect(raw.status).toBe(429);
  });


  it('reports a stream still open at the deadline as not closed, keeping the events read', async () => {
    const res = await new WireClient([], () => [], { timeoutMs: 300, run: new RunState() }).request(`http://127.0.0.1:${port}/open`);
    expect(res.closed).toBe(false);
    expect(res.messages).toEqual([{ n: 1 }]);
  });
});
