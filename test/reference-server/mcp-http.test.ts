import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { post } from '../helpers/mcp-http.js';
import { request } from 'undici';

let server: ReferenceServer;
let key: string;
const list = (id: string | number = 1) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

beforeAll(async () => {
  server = await startReference({ bootstrapPlan: 'unlimited' });
  ({ apiKey: key } = await bootstrap(server));
});
afterAll(() => server.close());

async function raw(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  return fetch(`${server.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
}

describe('HTTP surface of the MCP endpoint', () => {
  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])('%s gets 405 with Allow: POST', async (method) => {
    const res = await raw('/api/mcp/v1', { method, headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it.each(['/api/mcp/v2', '/api/mcp/v0', '/api/mcp', '/api/mcp/v1/', '/api/mcp/V1'])('%s is 404: only /v1 exists', async (path) => {
    const res = await raw(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(list()) });
    expect(res.status).toBe(404);
  });

  it('a body over the size limit gets 413, and the server keeps serving', async () => {
    const big = JSON.stringify({ ...list(), params: { pad: 'x'.repeat(server.config.maxBodyBytes) } });
    const res = await post(server.mcpUrl, null, { key, raw: big });
    expect(res.status).toBe(413);
    expect((await post(server.mcpUrl, list(), { key })).status).toBe(200);
  });

  it('a non-JSON content type gets 415', async () => {
    const res = await post(server.mcpUrl, list(), { key, headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
  });

  it('content-type parameters are ignored (application/json; charset=utf-8)', async () => {
    const res = await post(server.mcpUrl, list(), { key, headers: { 'content-type': 'Application/JSON; charset=utf-8' } });
    expect(res.status).toBe(200);
  });

  it('Accept that admits neither reply type gets 406; a missing Accept is fine', async () => {
    expect((await post(server.mcpUrl, list(), { key, headers: { accept: 'text/html' } })).status).toBe(406);
    const res = await fetch(server.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(list()) });
    expect(res.status).toBe(200);
  });

  it('no session id is issued, and a bogus Mcp-Session-Id is ignored', async () => {
    const init = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }, { key });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    const res = await post(server.mcpUrl, list(), { key, headers: { 'mcp-session-id': 'bogus-session' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });

  it('tools/list works without initialize', async () => {
    const res = await post(server.mcpUrl, list(7), { key });
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 7, result: { tools: expect.any(Array) } });
  });

  it('an Origin that is not allowed gets 403; the server\'s own origin passes', async () => {
    expect((await post(server.mcpUrl, list(), { key, headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await post(server.mcpUrl, list(), { key, headers: { origin: server.baseUrl } })).status).toBe(200);
  });

  it('served on loopback, a Host naming another host gets 403 (DNS rebinding); localhost and the server\'s own host pass', async () => {
    // fetch may not set Host: undici's request does, as a rebound browser page would send it.
    const status = async (host: string) => {
      const res = await request(server.mcpUrl, { method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` }, body: JSON.stringify(list()) });
      await res.body.text();
      return res.statusCode;
    };
    const port = new URL(server.baseUrl).port;
    expect(await status(`evil.example:${port}`)).toBe(403);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status(new URL(server.baseUrl).host)).toBe(200);
  });

  it('Last-Event-ID is ignored', async () => {
    expect((await post(server.mcpUrl, list(), { key, headers: { 'last-event-id': '1' } })).status).toBe(200);
  });
});

describe('JSON-RPC envelope', () => {
  it('invalid JSON gets 400 and -32700 with id null', async () => {
    for (const body of ['{bad', '', '{"jsonrpc":"2.0",', '\u00ff']) {
      const res = await post(server.mcpUrl, null, { key, raw: body });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
    }
  });

  it('bytes that are not UTF-8 are a parse error', async () => {
    const res = await fetch(server.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
  });

  it.each([
    ['an object that is not JSON-RPC', { foo: 1 }, null],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 3, method: 'ping' }, 3],
    ['no jsonrpc member', { id: 4, method: 'ping' }, 4],
    ['a number', 42, null],
    ['a string', 'tools/list', null],
    ['null', null, null],
    ['method not a string', { jsonrpc: '2.0', id: 5, method: 5 }, 5],
    ['id null', { jsonrpc: '2.0', id: null, method: 'ping' }, null],
    ['id fractional', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, null],
    ['id boolean', { jsonrpc: '2.0', id: true, method: 'ping' }, null],
    ['params a string', { jsonrpc: '2.0', id: 6, method: 'tools/list', params: 'x' }, 6],
    ['result and method together', { jsonrpc: '2.0', id: 8, method: 'ping', result: {} }, 8],
    // Found by the envelope property: the SDK's strict schema dropped such a request unanswered.
    ['a request with another member', { jsonrpc: '2.0', id: 10, method: 'tools/list', foo: null }, 10],
  ])('%s gets 400 and -32600 (Invalid Request)', async (_name, body, id) => {
    const res = await post(server.mcpUrl, body, { key });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: expect.any(String) } });
  });

  it.each([['an array', []], ['an object', { a: 1 }], ['a fraction', 1.5], ['null', null]])('a progressToken that is %s gets -32602 at once (it used to get no reply)', async (_name, token) => {
    const res = await post(server.mcpUrl, { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'blocks.list', arguments: {}, _meta: { progressToken: token } } }, { key, signal: AbortSignal.timeout(5000) });
    expect(res.json).toMatchObject({ id: 11, error: { code: -32602 } });
  });

  it('by-position params get -32602', async () => {
    const res = await post(server.mcpUrl, { jsonrpc: '2.0', id: 9, method: 'tools/list', params: [] }, { key });
    expect(res.json.error.code).toBe(-32602);
    expect(res.json.id).toBe(9);
  });

  it.each(['abc', '', 0, 42, 9007199254740991, -1])('id %j is echoed with the same value and type', async (id) => {
    const res = await post(server.mcpUrl, list(id), { key });
    expect(res.status).toBe(200);
    expect(res.json.id).toStrictEqual(id);
  });

  it('an unknown method gets -32601 with the request id', async () => {
    const res = await post(server.mcpUrl, { jsonrpc: '2.0', id: 'm', method: 'nope/nope' }, { key });
    expect(res.json).toMatchObject({ id: 'm', error: { code: -32601 } });
  });

  it('a response never carries both result and error', async () => {
    for (const body of [list(), { jsonrpc: '2.0', id: 2, method: 'nope' }, { jsonrpc: '2.0', id: 3, method: 'ping' }]) {
      const { json } = await post(server.mcpUrl, body, { key });
      expect('result' in json !== 'error' in json).toBe(true);
    }
  });

  it.each([
    ['notifications/initialized', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['notifications/cancelled for an unknown request', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } }],
    ['an unknown notification', { jsonrpc: '2.0', method: 'notifications/whatever' }],
    ['a client response', { jsonrpc: '2.0', id: 1, result: {} }],
  ])('%s gets 202 with an empty body', async (_name, body) => {
    const res = await post(server.mcpUrl, body, { key });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('ping answers an empty result', async () => {
    expect((await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, { key })).json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('protocol revisions (2025 era)', () => {
  const init = (protocolVersion: string) => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } } });

  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('initialize echoes the supported version %s', async (version) => {
    const { json } = await post(server.mcpUrl, init(version), { key });
    expect(json.result.protocolVersion).toBe(version);
    expect(json.result.serverInfo).toMatchObject({ name: expect.any(String), version: expect.any(String) });
    expect(json.result.capabilities.tools).toEqual(expect.any(Object));
  });

  it('initialize with an unknown version gets a version the server supports', async () => {
    const { json } = await post(server.mcpUrl, init('1999-01-01'), { key });
    expect(['2025-03-26', '2025-06-18', '2025-11-25']).toContain(json.result.protocolVersion);
  });

  it('an unsupported MCP-Protocol-Version header gets 400', async () => {
    const res = await post(server.mcpUrl, list(), { key, headers: { 'mcp-protocol-version': '1999-01-01' } });
    expect(res.status).toBe(400);
  });

  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('MCP-Protocol-Version %s is accepted', async (version) => {
    expect((await post(server.mcpUrl, list(), { key, headers: { 'mcp-protocol-version': version } })).status).toBe(200);
  });

  it('batches are answered under 2025-03-26 (the default), without entries for notifications', async () => {
    const res = await post(server.mcpUrl, [list('a'), { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 'b', method: 'ping' }], { key });
    expect(res.status).toBe(200);
    expect(res.json.map((m: { id: string }) => m.id).sort()).toEqual(['a', 'b']);
  });

  it('a batch holding an invalid entry answers it with -32600 beside the others', async () => {
    const res = await post(server.mcpUrl, [list('a'), { foo: 1 }], { key });
    expect(res.json).toHaveLength(2);
    expect(res.json.find((m: { id: unknown }) => m.id === null).error.code).toBe(-32600);
  });

  it('initialize inside a batch is rejected', async () => {
    const res = await post(server.mcpUrl, [init('2025-03-26')], { key });
    expect(res.json[0].error.code).toBe(-32600);
  });

  it('an all-notification batch gets 202', async () => {
    expect((await post(server.mcpUrl, [{ jsonrpc: '2.0', method: 'notifications/initialized' }], { key })).status).toBe(202);
  });

  it('an empty batch gets 400 -32600', async () => {
    const res = await post(server.mcpUrl, [], { key });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(-32600);
  });

  it('batches are refused from 2025-06-18 on', async () => {
    const res = await post(server.mcpUrl, [list()], { key, headers: { 'mcp-protocol-version': '2025-06-18' } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(-32600);
  });
});
