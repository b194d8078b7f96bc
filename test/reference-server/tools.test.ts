import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { call, finalMessage, post } from '../helpers/mcp-http.js';

let server: ReferenceServer;
let key: string;

beforeAll(async () => {
  server = await startReference({ plans: { small: { ratePerSecond: 1000, burst: 1000, maxBlocks: 3 } }, bootstrapPlan: 'unlimited' });
  ({ apiKey: key } = await bootstrap(server));
});
afterAll(() => server.close());

async function invoke(name: string, args: Record<string, unknown> = {}, k = key, headers: Record<string, string> = {}) {
  const reply = await post(server.mcpUrl, call(name, args), { key: k, headers });
  return finalMessage(reply);
}

const NAMED_TOOLS = ['blocks.create', 'blocks.build', 'blocks.list', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview'];

describe('tools/list', () => {
  it('lists every tool the description names, with compiling object input schemas', async () => {
    const { json } = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key });
    const tools = json.result.tools as { name: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> }[];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(NAMED_TOOLS));
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
      expect(tool.inputSchema.type).toBe('object');
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      if (tool.outputSchema) expect(() => ajv.compile(tool.outputSchema!)).not.toThrow();
    }
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    const blocksList = tools.find((t) => t.name === 'blocks.list')!;
    expect(blocksList.inputSchema.properties).toMatchObject({ published: { type: 'boolean' } });
  });

  it('returns the same order every time', async () => {
    const names = async () => (await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key })).json.result.tools.map((t: { name: string }) => t.name);
    const first = await names();
    expect(await names()).toEqual(first);
    expect(await names()).toEqual(first);
  });

  it('an invalid cursor gets -32602', async () => {
    const { json } = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'garbage' } }, { key });
    expect(json.error.code).toBe(-32602);
  });
});

describe('tools/call errors', () => {
  it('an unknown tool is a protocol error -32602, not a result', async () => {
    const msg = await invoke('__nope__');
    expect(msg.error.code).toBe(-32602);
    expect(msg.result).toBeUndefined();
  });

  it('tools/call without a name is -32602', async () => {
    const { json } = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, { key });
    expect(json.error.code).toBe(-32602);
  });

  it('invalid arguments: -32602 before 2025-11-25, an isError result from 2025-11-25 on', async () => {
    const old = await invoke('blocks.list', { published: 'yes' }, key, { 'mcp-protocol-version': '2025-06-18' });
    expect(old.error.code).toBe(-32602);
    const current = await invoke('blocks.list', { published: 'yes' }, key, { 'mcp-protocol-version': '2025-11-25' });
    expect(current.result.isError).toBe(true);
    expect(current.result.content[0].text).toMatch(/published/);
  });

  it.each([
    ['an extra property', 'blocks.list', { published: true, extra: 1 }],
    ['a wrong enum value', 'blocks.create', { title: 't', kind: 'video' }],
    ['an empty title', 'blocks.create', { title: '', kind: 'text' }],
    ['a huge string', 'blocks.create', { title: 'x'.repeat(100_000), kind: 'text' }],
    ['a count out of range', 'schedule.preview', { expression: '* * * * *', count: 51 }],
    ['a non-integer count', 'schedule.preview', { expression: '* * * * *', count: 1.5 }],
    ['a non-URI url', 'dataSources.create', { name: 'n', kind: 'http', url: 'not a url' }],
  ])('%s is rejected without a 5xx and without a write', async (_name, tool, args) => {
    const before = server.store.countBlocks((await invoke('workspace.get')).result.structuredContent.workspace.id);
    const msg = await invoke(tool, args, key, { 'mcp-protocol-version': '2025-11-25' });
    expect(msg.result.isError).toBe(true);
    const after = server.store.countBlocks((await invoke('workspace.get')).result.structuredContent.workspace.id);
    expect(after).toBe(before);
  });
});

describe('blocks', () => {
  it('a created block is listed, and the published filter partitions the list', async () => {
    const { apiKey } = await bootstrap(server);
    const ids: string[] = [];
    for (const title of ['a', 'b', 'c', 'd']) {
      const msg = await invoke('blocks.create', { title, kind: 'text', content: `# ${title}` }, apiKey);
      expect(msg.result.structuredContent.block).toMatchObject({ title, kind: 'text', published: false });
      ids.push(msg.result.structuredContent.block.id);
    }
    await invoke('blocks.publish', { blockId: ids[1] }, apiKey);
    await invoke('blocks.publish', { blockId: ids[3], published: true }, apiKey);
    const all = (await invoke('blocks.list', {}, apiKey)).result.structuredContent.blocks.map((b: { id: string }) => b.id);
    const pub = (await invoke('blocks.list', { published: true }, apiKey)).result.structuredContent.blocks.map((b: { id: string }) => b.id);
    const unpub = (await invoke('blocks.list', { published: false }, apiKey)).result.structuredContent.blocks.map((b: { id: string }) => b.id);
    expect(all).toEqual(ids);
    expect(pub).toEqual([ids[1], ids[3]]);
    expect(unpub).toEqual([ids[0], ids[2]]);
    await invoke('blocks.publish', { blockId: ids[1], published: false }, apiKey);
    expect((await invoke('blocks.list', { published: true }, apiKey)).result.structuredContent.count).toBe(1);
  });

  it('results carry structuredContent and the same JSON as text', async () => {
    const msg = await invoke('blocks.list');
    expect(JSON.parse(msg.result.content[0].text)).toEqual(msg.result.structuredContent);
  });

  it('build returns an artifact and counts builds; an unknown block is a tool error', async () => {
    const block = (await invoke('blocks.create', { title: 'chart', kind: 'chart' })).result.structuredContent.block;
    const first = (await invoke('blocks.build', { blockId: block.id })).result.structuredContent;
    const second = (await invoke('blocks.build', { blockId: block.id })).result.structuredContent;
    expect(first).toMatchObject({ blockId: block.id, buildStatus: 'built', buildNumber: 1, artifact: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(second.buildNumber).toBe(2);
    expect(second.artifact).toBe(first.artifact);
    const missing = await invoke('blocks.build', { blockId: 'blk_missing' });
    expect(missing.result.isError).toBe(true);
    expect(missing.result.content[0].text).toMatch(/not found/);
  });

  it('past the plan cap, blocks.create is a clear tool error and writes nothing', async () => {
    const ws = server.store.createWorkspace({ name: 'small', plan: 'small' });
    server.store.createCanvas(ws.id, 'c', null);
    const { mintKey } = await import('../../service/reference-server/keys.js');
    const { key: small } = mintKey(server.store, 'cnv', { workspaceId: ws.id, label: 't', temporary: false });
    for (let i = 0; i < 3; i++) expect((await invoke('blocks.create', { title: `b${i}`, kind: 'text' }, small)).result.isError).toBeUndefined();
    const over = await invoke('blocks.create', { title: 'one too many', kind: 'text' }, small);
    expect(over.result.isError).toBe(true);
    expect(over.result.content[0].text).toMatch(/cap/i);
    expect(server.store.countBlocks(ws.id)).toBe(3);
  });

  it('concurrent creates never exceed the cap', async () => {
    const ws = server.store.createWorkspace({ name: 'race', plan: 'small' });
    server.store.createCanvas(ws.id, 'c', null);
    const { mintKey } = await import('../../service/reference-server/keys.js');
    const { key: k } = mintKey(server.store, 'cnv', { workspaceId: ws.id, label: 't', temporary: false });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => invoke('blocks.create', { title: `r${i}`, kind: 'text' }, k)));
    expect(results.filter((m) => !m.result.isError)).toHaveLength(3);
    expect(server.store.countBlocks(ws.id)).toBe(3);
  });
});

describe('data sources', () => {
  it('register, test and refresh; an unreachable (.invalid) host fails clearly', async () => {
    const ok = (await invoke('dataSources.create', { name: 'warehouse', kind: 'postgres', url: 'postgres://db.example.com/sales' })).result.structuredContent.dataSource;
    const bad = (await invoke('dataSources.create', { name: 'gone', kind: 'http', url: 'https://nowhere.invalid/data.json' })).result.structuredContent.dataSource;
    const test1 = (await invoke('dataSources.testConnection', { dataSourceId: ok.id })).result.structuredContent;
    expect(test1).toMatchObject({ dataSourceId: ok.id, ok: true });
    expect((await invoke('dataSources.testConnection', { dataSourceId: ok.id })).result.structuredContent.latencyMs).toBe(test1.latencyMs);
    expect((await invoke('dataSources.testConnection', { dataSourceId: bad.id })).result.structuredContent).toMatchObject({ ok: false, message: expect.stringMatching(/resolve/) });
    const r1 = (await invoke('dataSources.triggerRefresh', { dataSourceId: ok.id })).result.structuredContent;
    const r2 = (await invoke('dataSources.triggerRefresh', { dataSourceId: ok.id })).result.structuredContent;
    expect([r1.refreshNumber, r2.refreshNumber]).toEqual([1, 2]);
    expect((await invoke('dataSources.triggerRefresh', { dataSourceId: bad.id })).result.isError).toBe(true);
    const listed = (await invoke('dataSources.list')).result.structuredContent.dataSources;
    expect(listed.find((d: { id: string }) => d.id === ok.id).refreshCount).toBe(2);
  });
});

describe('schedule.preview', () => {
  it('returns the next run times, strictly increasing and after `from`', async () => {
    const msg = await invoke('schedule.preview', { expression: '*/15 9-17 * * 1-5', count: 5, from: '2026-01-02T16:40:00Z' });
    expect(msg.result.structuredContent.runs).toEqual([
      '2026-01-02T16:45:00.000Z', '2026-01-02T17:00:00.000Z', '2026-01-02T17:15:00.000Z', '2026-01-02T17:30:00.000Z', '2026-01-02T17:45:00.000Z',
    ]);
  });

  it('honours the time zone', async () => {
    const msg = await invoke('schedule.preview', { expression: '0 9 * * *', count: 2, from: '2026-07-01T00:00:00Z', timezone: 'Europe/Paris' });
    expect(msg.result.structuredContent.runs).toEqual(['2026-07-01T07:00:00.000Z', '2026-07-02T07:00:00.000Z']);
  });

  it.each([
    ['a bad expression', { expression: 'every day' }],
    ['six fields', { expression: '0 0 * * * *' }],
    ['an unknown time zone', { expression: '* * * * *', timezone: 'Mars/Olympus' }],
    ['a date that never comes', { expression: '0 0 30 2 *' }],
  ])('%s is a tool error', async (_name, args) => {
    const msg = await invoke('schedule.preview', args);
    expect(msg.result.isError).toBe(true);
  });
});
