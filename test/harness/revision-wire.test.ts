import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunState } from '../../src/engine/run-state.js';
import { McpSession } from '../../src/mcp/mcp-session.js';
import {
  CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, primaryRevision, speakRevision,
} from '../../src/mcp/revision-wire.js';
import type { TargetInfo } from '../../src/targets/target-info.js';
import { WireClient } from '../../src/wire/client.js';
import type { Exchange } from '../../src/wire/exchange.js';

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'blocks.list', arguments: { published: true } } };
const envelope = { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_CAPABILITIES_META_KEY]: {}, [CLIENT_INFO_META_KEY]: CLIENT_INFO };

describe('revision wire: what each revision adds', () => {
  it('2025-03-26 adds nothing (a missing header means 2025-03-26)', () => {
    const spoken = speakRevision('2025-03-26', call);
    expect(spoken.headers).toEqual({});
    expect(spoken.body).toBe(call);
  });

  it.each(['2025-06-18', '2025-11-25'] as const)('%s sends MCP-Protocol-Version and leaves the body alone', (rev) => {
    const spoken = speakRevision(rev, call);
    expect(spoken.headers).toEqual({ 'mcp-protocol-version': rev });
    expect(spoken.body).toBe(call);
  });

  it('2026-07-28 adds the _meta envelope and MCP-Protocol-Version, Mcp-Method, Mcp-Name matching the body', () => {
    const spoken = speakRevision('2026-07-28', call);
    expect(spoken.headers).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'blocks.list' });
    expect(spoken.body).toEqual({ ...call, params: { ...call.params, _meta: envelope } });
    expect(call.params).not.toHaveProperty('_meta'); // the check's object is not mutated
  });

  it('2026-07-28: no Mcp-Name for methods that name no target; params created when absent; resources/read names its uri', () => {
    const spoken = speakRevision('2026-07-28', list);
    expect(spoken.headers).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
    expect(spoken.body).toEqual({ ...list, params: { _meta: envelope } });
    expect(speakRevision('2026-07-28', { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///a' } }).headers['mcp-name']).toBe('file:///a');
    // Values that are not plain visible ASCII use the Base64 form (SEP-2243).
    expect(speakRevision('2026-07-28', { ...call, params: { name: 'caf\u00e9' } }).headers['mcp-name']).toMatch(/^=\?base64\?.*\?=$/);
  });

  it('2026-07-28 keeps what the check put in _meta (a progress token, its own envelope values)', () => {
    const body = { ...call, params: { ...call.params, _meta: { progressToken: 'p1', [CLIENT_CAPABILITIES_META_KEY]: { sampling: {} } } } };
    const meta = (speakRevision('2026-07-28', body).body as typeof body).params._meta as Record<string, unknown>;
    expect(meta).toEqual({ progressToken: 'p1', [CLIENT_CAPABILITIES_META_KEY]: { sampling: {} }, [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_INFO_META_KEY]: CLIENT_INFO });
  });

  it('notifications are decorated too; responses are not', () => {
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } };
    expect(speakRevision('2026-07-28', note).headers['mcp-method']).toBe('notifications/cancelled');
    const response = { jsonrpc: '2.0', id: 1, result: {} };
    expect(speakRevision('2026-07-28', response).body).toBe(response);
  });
});

describe('revision wire: bodies malformed on purpose go out untouched', () => {
  const malformed: [string, unknown][] = [
    ['raw text (no body)', undefined],
    ['a batch', [list, call]],
    ['params that are an array', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: ['blocks.list'] }],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
    ['no jsonrpc member', { id: 1, method: 'tools/list' }],
    ['a method that is not a string', { jsonrpc: '2.0', id: 1, method: 42 }],
    ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'tools/list' }],
    ['_meta that is not an object', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 'x' } }],
    ['a string', 'tools/list'],
    ['null', null],
  ];
  it.each(malformed)('%s', (_label, body) => {
    const spoken = speakRevision('2026-07-28', body);
    expect(spoken.body).toBe(body);
    // The revision still speaks through its header: only the body-derived headers are left out.
    expect(spoken.headers).toEqual({ 'mcp-protocol-version': '2026-07-28' });
    expect(speakRevision('2025-06-18', body)).toMatchObject({ body, headers: { 'mcp-protocol-version': '2025-06-18' } });
  });
});

describe('revision wire: an explicit header wins', () => {
  it('a wrong MCP-Protocol-Version or Mcp-Name a check sets on purpose is not replaced', () => {
    expect(speakRevision('2025-11-25', list, { 'mcp-protocol-version': '1999-01-01' }).headers).toEqual({});
    const wrongName = speakRevision('2026-07-28', call, { 'Mcp-Name': 'other.tool' });
    expect(wrongName.headers).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' });
    expect(wrongName.body).toHaveProperty(['params', '_meta', PROTOCOL_VERSION_META_KEY], '2026-07-28');
  });

  it('an explicit known revision (any case) is the one the request speaks', () => {
    const legacy = speakRevision('2026-07-28', call, { 'MCP-Protocol-Version': '2025-06-18' });
    expect(legacy).toEqual({ headers: {}, body: call, revision: '2025-06-18' });
    const modern = speakRevision('2025-11-25', call, { 'MCP-Protocol-Version': '2026-07-28' });
    expect(modern.revision).toBe('2026-07-28');
    expect(modern.headers).toEqual({ 'mcp-method': 'tools/call', 'mcp-name': 'blocks.list' });
    expect(modern.body).toHaveProperty(['params', '_meta', CLIENT_CAPABILITIES_META_KEY], {});
  });

  it("a body carrying its own 2026-07-28 envelope speaks 2026-07-28 whatever the session's revision", () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } } };
    expect(speakRevision('2025-11-25', body).headers).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
  });

  it('no revision: nothing added', () => {
    expect(speakRevision(undefined, call)).toEqual({ headers: {}, body: call });
  });
});

describe('primary revision', () => {
  it('is --protocol when given, else the newest 2025-era revision spoken, else 2026-07-28, else none', () => {
    expect(primaryRevision('2025-06-18', ['2025-03-26', '2025-11-25'])).toBe('2025-06-18');
    expect(primaryRevision('auto', ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'])).toBe('2025-11-25');
    expect(primaryRevision('auto', ['2025-03-26', '2026-07-28'])).toBe('2025-03-26');
    expect(primaryRevision('auto', ['2026-07-28'])).toBe('2026-07-28');
    expect(primaryRevision('auto', [])).toBeUndefined();
  });
});

describe('McpSession speaks its revision on every request', () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { headers: req.headers, body } }));
    });
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  const target = (over: Partial<TargetInfo> = {}) => ({ mcpUrl: url, headers: {}, timeoutMs: 2000, protocol: 'auto', revisions: ['2025-11-25', '2026-07-28'], ...over }) as TargetInfo;
  const session = (t: TargetInfo, revision?: '2026-07-28' | null) => new McpSession(new WireClient([] as Exchange[], () => [], { timeoutMs: 2000, run: new RunState() }), t, revision === undefined ? {} : { revision });

  it('the primary revision by default; the given one (a check\'s) when set; none with null', async () => {
    const primary = (await session(target()).request('tools/list')).json.result;
    expect(primary.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(JSON.parse(primary.body)).not.toHaveProperty('params');
    const modern = (await session(target(), '2026-07-28').call('blocks.list', {}, { progressToken: 't' })).json.result;
    expect(modern.headers).toMatchObject({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'blocks.list' });
    expect(JSON.parse(modern.body).params._meta).toMatchObject({ progressToken: 't', [PROTOCOL_VERSION_META_KEY]: '2026-07-28' });
    const none = (await session(target(), null).request('tools/list')).json.result;
    expect(none.headers).not.toHaveProperty('mcp-protocol-version');
  });

  it('raw bodies go out as written; explicit and --header values win; headers() speaks it too', async () => {
    const s = session(target(), '2026-07-28');
    const raw = (await s.post(undefined, { raw: '{"jsonrpc": "2.0", "id": 1, "method": ' })).json.result;
    expect(raw.body).toBe('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(raw.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(raw.headers).not.toHaveProperty('mcp-method');
    const wrong = (await s.request('tools/list', undefined, { headers: { 'mcp-protocol-version': 'not-a-version' } })).json.result;
    expect(wrong.headers['mcp-protocol-version']).toBe('not-a-version');
    const flagged = (await session(target({ headers: { 'MCP-Protocol-Version': '2025-06-18' } })).request('tools/list')).json.result;
    expect(flagged.headers['mcp-protocol-version']).toBe('2025-06-18');
    expect(s.headers()).toMatchObject({ 'mcp-protocol-version': '2026-07-28' });
    expect(s.headers({}, list)).toMatchObject({ 'mcp-method': 'tools/list' });
  });
});
