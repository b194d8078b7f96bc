import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { call, post, type RpcReply } from '../helpers/mcp-http.js';

const STEPS = 4;
const DELAY = 40;
let server: ReferenceServer;
let key: string;
let blockId: string;
let dataSourceId: string;

beforeAll(async () => {
  server = await startReference({ bootstrapPlan: 'unlimited', streaming: { steps: STEPS, stepDelayMs: DELAY } });
  ({ apiKey: key } = await bootstrap(server));
  const created = await post(server.mcpUrl, call('blocks.create', { title: 'b', kind: 'table' }), { key });
  blockId = created.messages!.at(-1).result.structuredContent.block.id;
  const ds = await post(server.mcpUrl, call('dataSources.create', { name: 'd', kind: 'http', url: 'https://data.example.com/x.json' }), { key });
  dataSourceId = ds.json.result.structuredContent.dataSource.id;
});
afterAll(() => server.close());

const streamingCalls: [string, () => Record<string, unknown>][] = [
  ['blocks.create', () => ({ title: 'streamed', kind: 'text' })],
  ['blocks.build', () => ({ blockId })],
  ['dataSources.testConnection', () => ({ dataSourceId })],
  ['dataSources.triggerRefresh', () => ({ dataSourceId })],
  ['schedule.preview', () => ({ expression: '0 * * * *', count: 3, from: '2026-01-01T00:00:00Z' })],
];

function progressOf(reply: RpcReply) {
  return reply.messages!.filter((m) => m.method === 'notifications/progress');
}

describe.each(streamingCalls)('%s streams', (name, args) => {
  it.each([['a string token', 'tok-1'], ['an integer token', 7], ['integer token 0', 0]])('with %s: progress carrying the exact token, increasing, then the result, then the end', async (_label, token) => {
    const id = `req-${name}`;
    const reply = await post(server.mcpUrl, call(name, args(), { id, progressToken: token }), { key });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = reply.messages!;
    const progress = progressOf(reply);
    expect(progress).toHaveLength(STEPS);
    for (const p of progress) expect(p.params.progressToken).toStrictEqual(token);
    const values = progress.map((p) => p.params.progress as number);
    values.forEach((v, i) => i > 0 && expect(v).toBeGreaterThan(values[i - 1]!));
    // The final event is the result with the request's id, and nothing follows it.
    const last = messages.at(-1);
    expect(last).toMatchObject({ jsonrpc: '2.0', id });
    expect(last.result).toBeDefined();
    expect(last.result.isError).toBeUndefined();
    expect(messages.filter((m) => 'id' in m)).toHaveLength(1);
    expect(messages.slice(0, -1).every((m) => m.method === 'notifications/progress')).toBe(true);
  });

  it('without a token: no progress at all, still text/event-stream, then the result', async () => {
    const reply = await post(server.mcpUrl, call(name, args(), { id: 5 }), { key });
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(progressOf(reply)).toHaveLength(0);
    expect(reply.messages).toHaveLength(1);
    expect(reply.messages![0]).toMatchObject({ id: 5, result: expect.any(Object) });
  });

  it('events arrive spread over time, not flushed at the end', async () => {
    const reply = await post(server.mcpUrl, call(name, args(), { progressToken: 'timing' }), { key });
    const times = reply.events!.map((e) => e.at);
    // With STEPS pauses of DELAY ms, the first event arrives well before the last.
    // Half the pauses at least: a loaded machine may deliver the first event late, but a flush at the end spreads nothing.
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual((STEPS - 1) * DELAY * 0.5);
  });
});

describe('streaming headers and framing', () => {
  it('SSE replies disable proxy buffering and caching', async () => {
    const reply = await post(server.mcpUrl, call('schedule.preview', { expression: '* * * * *' }), { key });
    expect(reply.headers.get('x-accel-buffering')).toBe('no');
    expect(reply.headers.get('cache-control')).toMatch(/no-cache/);
  });

  it('a streaming call whose Accept excludes text/event-stream gets 406', async () => {
    const reply = await post(server.mcpUrl, call('schedule.preview', { expression: '* * * * *' }), { key, headers: { accept: 'application/json' } });
    expect(reply.status).toBe(406);
  });

  it('non-streaming tools reply application/json with one message', async () => {
    for (const name of ['blocks.list', 'dataSources.list', 'workspace.get']) {
      const reply = await post(server.mcpUrl, call(name, {}, { progressToken: 'ignored' }), { key });
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.json.result).toBeDefined();
    }
  });
});

describe('concurrency and cancellation', () => {
  it('concurrent streams each get only their own events', async () => {
    const replies = await Promise.all(streamingCalls.flatMap(([name, args], i) => [
      post(server.mcpUrl, call(name, args(), { id: `c${i}`, progressToken: `t${i}` }), { key }),
      post(server.mcpUrl, call(name, args(), { id: i * 100, progressToken: i * 100 }), { key }),
    ]));
    replies.forEach((reply, j) => {
      const i = Math.floor(j / 2);
      const [id, token] = j % 2 === 0 ? [`c${i}`, `t${i}`] : [i * 100, i * 100];
      expect(reply.messages!.at(-1).id).toStrictEqual(id);
      expect(progressOf(reply).every((p) => p.params.progressToken === token)).toBe(true);
      expect(progressOf(reply)).toHaveLength(STEPS);
    });
  });

  it('closing the stream cancels blocks.build: the build is recorded as cancelled', async () => {
    const created = await post(server.mcpUrl, call('blocks.create', { title: 'to cancel', kind: 'text' }), { key });
    const id = created.messages!.at(-1).result.structuredContent.block.id;
    const abort = new AbortController();
    const res = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify(call('blocks.build', { blockId: id }, { progressToken: 'x' })),
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await new Promise((r) => setTimeout(r, DELAY * 3));
    const listed = await post(server.mcpUrl, call('blocks.list'), { key });
    const block = listed.json.result.structuredContent.blocks.find((b: { id: string }) => b.id === id);
    expect(block.buildStatus).toBe('cancelled');
    expect(block.buildCount).toBe(0);
  });
});
