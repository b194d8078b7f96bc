import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { post } from '../helpers/mcp-http.js';

/** The 2026-07-28 stateless wire: per-request `_meta` envelope and the MCP-* headers. */
const REV = '2026-07-28';
const envelope = { 'io.modelcontextprotocol/protocolVersion': REV, 'io.modelcontextprotocol/clientCapabilities': {} };
let server: ReferenceServer;
let key: string;

beforeAll(async () => {
  server = await startReference({ bootstrapPlan: 'unlimited' });
  ({ apiKey: key } = await bootstrap(server));
});
afterAll(() => server.close());

function modern(method: string, params: Record<string, unknown> = {}, opts: { id?: number | string; headers?: Record<string, string>; meta?: Record<string, unknown> } = {}) {
  const headers: Record<string, string> = { 'mcp-protocol-version': REV, 'mcp-method': method, ...opts.headers };
  if (method === 'tools/call' && typeof params.name === 'string' && !('mcp-name' in headers)) headers['mcp-name'] = params.name;
  return post(server.mcpUrl, { jsonrpc: '2.0', id: opts.id ?? 1, method, params: { ...params, _meta: { ...envelope, ...opts.meta } } }, { key, headers });
}

describe('2026-07-28 wire', () => {
  it('server/discover names the supported versions and the tools capability', async () => {
    const { status, json } = await modern('server/discover');
    expect(status).toBe(200);
    expect(json.result.supportedVersions).toContain(REV);
    expect(json.result.capabilities.tools).toEqual(expect.any(Object));
    expect(json.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'canvas-reference' });
  });

  it('results carry resultType; tools/list carries ttlMs and cacheScope', async () => {
    const { json } = await modern('tools/list');
    expect(json.result.resultType).toBe('complete');
    expect(Number.isInteger(json.result.ttlMs) && json.result.ttlMs >= 0).toBe(true);
    expect(['public', 'private']).toContain(json.result.cacheScope);
    expect(json.result.tools.length).toBeGreaterThan(5);
  });

  it('streaming tools stream progress with the token, then the result', async () => {
    const reply = await modern('tools/call', { name: 'schedule.preview', arguments: { expression: '0 * * * *', count: 2 } }, { id: 'm1', meta: { progressToken: 'mt' } });
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const progress = reply.messages!.filter((m) => m.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p.params.progressToken === 'mt')).toBe(true);
    expect(reply.messages!.at(-1)).toMatchObject({ id: 'm1', result: { resultType: 'complete' } });
  });

  it('streaming tools reply text/event-stream even without a token', async () => {
    const reply = await modern('tools/call', { name: 'schedule.preview', arguments: { expression: '0 * * * *', count: 1 } });
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(reply.messages).toHaveLength(1);
  });

  it('non-streaming tools reply application/json', async () => {
    const reply = await modern('tools/call', { name: 'blocks.list', arguments: {} });
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.json.result.structuredContent).toEqual({ blocks: [], count: 0 });
  });

  it('an unknown method gets 404 and -32601', async () => {
    const { status, json } = await modern('nope/nope');
    expect(status).toBe(404);
    expect(json.error.code).toBe(-32601);
  });

  it('a header that disagrees with the envelope gets 400 and -32020', async () => {
    const { status, json } = await modern('tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } });
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32020);
  });

  it('a missing clientCapabilities gets 400 and -32602', async () => {
    const reply = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': REV } } }, { key, headers: { 'mcp-protocol-version': REV, 'mcp-method': 'tools/list' } });
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe(-32602);
  });

  it('invalid tool arguments are an isError result', async () => {
    const { json } = await modern('tools/call', { name: 'blocks.list', arguments: { published: 1 } });
    expect(json.result.isError).toBe(true);
  });

  it('authentication and rate limiting still come first', async () => {
    const reply = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }, { headers: { 'mcp-protocol-version': REV, 'mcp-method': 'tools/list' } });
    expect(reply.status).toBe(401);
  });
});
