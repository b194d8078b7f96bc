import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATS_PATH, startBalancer, type Balancer } from '../../service/reference-server/balancer.js';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { call, finalMessage, post } from '../helpers/mcp-http.js';
import { program } from '../../src/kit/package-root.js';

// Statelessness: two replicas sharing one SQLite file behind a round-robin
// balancer must behave as one service, whichever replica serves a request.

const STEP_DELAY_MS = 50;
const BALANCER = join(import.meta.dirname, '../../service/reference-server/balancer.ts');

let dir: string;
let a: ReferenceServer;
let b: ReferenceServer;
let balancer: Balancer;
const served = { a: 0, b: 0 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'replicas-'));
  const dbPath = join(dir, 'canvas.db');
  const streaming = { steps: 3, stepDelayMs: STEP_DELAY_MS };
  a = await startReference({ dbPath, streaming });
  b = await startReference({ dbPath, streaming });
  a.http.on('request', () => void served.a++);
  b.http.on('request', () => void served.b++);
  balancer = await startBalancer({ upstreams: [a.baseUrl, b.baseUrl] });
});

afterAll(async () => {
  await balancer?.close();
  await a?.close();
  await b?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('two replicas sharing one SQLite file', () => {
  it('lists through replica B a block created through replica A', async () => {
    const { apiKey } = await bootstrap(a);
    const created = finalMessage(await post(a.mcpUrl, call('blocks.create', { title: 'made on A', kind: 'text' }), { key: apiKey }));
    expect(created.result?.isError).toBeFalsy();
    const blockId = created.result.structuredContent.block.id as string;

    const listed = await post(b.mcpUrl, call('blocks.list'), { key: apiKey });
    expect(listed.status).toBe(200);
    const ids = (listed.json.result.structuredContent.blocks as { id: string }[]).map((blk) => blk.id);
    expect(ids).toContain(blockId);
  });

  it('accepts on replica B a key minted on replica A', async () => {
    const minted = await bootstrap(a);
    const reply = await post(b.mcpUrl, call('workspace.get'), { key: minted.apiKey });
    expect(reply.status).toBe(200);
    expect(reply.json.result.structuredContent.workspace.id).toBe(minted.workspace.id);
  });

  it('answers 20 alternating tools/list calls through the balancer, 10 per replica', async () => {
    const { apiKey } = await bootstrap(a);
    const before = { ...served };
    for (let i = 0; i < 20; i++) {
      const reply = await post(`${balancer.baseUrl}/api/mcp/v1`, { jsonrpc: '2.0', id: i, method: 'tools/list' }, { key: apiKey });
      expect(reply.status, `call ${i}`).toBe(200);
      expect(reply.json.id).toBe(i);
      expect(reply.json.result.tools.map((t: { name: string }) => t.name)).toContain('blocks.create');
    }
    expect({ a: served.a - before.a, b: served.b - before.b }).toEqual({ a: 10, b: 10 });
  });

  it('counts what each upstream served on its stats page', async () => {
    const stats = async () => ((await (await fetch(`${balancer.baseUrl}${STATS_PATH}`)).json()) as { upstreams: { url: string; requests: number }[] }).upstreams;
    const before = await stats();
    const { apiKey } = await bootstrap(a);
    for (let i = 0; i < 6; i++) await post(`${balancer.baseUrl}/api/mcp/v1`, { jsonrpc: '2.0', id: i, method: 'tools/list' }, { key: apiKey });
    const after = await stats();
    expect(after.map((u) => u.url)).toEqual([a.baseUrl, b.baseUrl]);
    expect(after.map((u, i) => u.requests - before[i]!.requests)).toEqual([3, 3]);
  });

  it('bootstraps through the balancer and uses the key on both replicas', async () => {
    const minted = await bootstrap(balancer);
    for (const server of [a, b]) {
      const reply = await post(server.mcpUrl, call('workspace.get'), { key: minted.apiKey });
      expect(reply.status).toBe(200);
    }
  });
});

describe('balancer', () => {
  it('passes SSE through live, not buffered until the end', async () => {
    const { apiKey } = await bootstrap(a);
    const reply = await post(`${balancer.baseUrl}/api/mcp/v1`, call('blocks.create', { title: 'streamed', kind: 'text' }, { progressToken: 'p1' }), { key: apiKey });
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = reply.events!;
    expect(events.length).toBe(4); // 3 progress notifications, then the result
    expect(finalMessage(reply).result.structuredContent.block.title).toBe('streamed');
    // Steps are STEP_DELAY_MS apart: a buffering proxy would deliver all events at once.
    expect(events.at(-1)!.at - events[0]!.at).toBeGreaterThan(STEP_DELAY_MS);
  });

  it('passes a client\'s disconnect upstream, which cancels a streaming build', async () => {
    const { apiKey, workspace } = await bootstrap(a);
    const created = finalMessage(await post(a.mcpUrl, call('blocks.create', { title: 'to build', kind: 'text' }), { key: apiKey }));
    const blockId = created.result.structuredContent.block.id as string;
    const abort = new AbortController();
    const res = await fetch(`${balancer.baseUrl}/api/mcp/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(call('blocks.build', { blockId }, { progressToken: 'b1' })),
      signal: abort.signal,
    });
    await res.body!.getReader().read(); // the first progress event: the build is running
    abort.abort();
    await expect.poll(() => a.store.block(workspace.id, blockId)?.buildStatus, { timeout: 3000 }).toBe('cancelled');
  });

  it('answers 502 when an upstream is down', async () => {
    const dead = await startBalancer({ upstreams: ['http://127.0.0.1:9'] });
    try {
      const res = await fetch(`${dead.baseUrl}/healthz`);
      expect(res.status).toBe(502);
      expect((await res.json()).error).toBe('bad_gateway');
    } finally {
      await dead.close();
    }
  });

  it('runs as a command: prints its URL and proxies', async () => {
    const child = spawn(process.execPath, [program(BALANCER), '--upstream', a.baseUrl, '--upstream', b.baseUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [url] = await Promise.race([
        createInterface({ input: child.stdout })[Symbol.asyncIterator]().next().then((r) => [r.value as string]),
        new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`balancer exited with ${code}`)))),
      ]);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
    } finally {
      child.kill();
    }
  });

  it('exits 2 with a message on an unknown option', async () => {
    const child = spawn(process.execPath, [program(BALANCER), '--upstream', a.baseUrl, '--bogus'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/Unknown option '--bogus'/);
  });
});
