import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../service/reference-server/keys.js';
import { fieldValue, mcpHeaders } from '../../service/reference-server/stdio-proxy/headers.js';
import { describe as describeLine } from '../../service/reference-server/stdio-proxy/jsonrpc.js';
import { LineSplitter, type Line } from '../../service/reference-server/stdio-proxy/lines.js';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { call, post } from '../helpers/mcp-http.js';
import { program } from '../../src/kit/package-root.js';

/**
 * The stdio proxy as a child process (`node --import tsx .../stdio-proxy/main.ts`) against in-process
 * reference servers on loopback. Every stdout line is parsed: anything but one JSON message per line fails.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = 'service/reference-server/stdio-proxy/main.ts';
// A bound on a hang, generous for a slow or busy machine: every wait ends as soon as its condition holds.
const WAIT_MS = 20_000;

type Msg = Record<string, any>;

interface Exit { code: number | null; signal: NodeJS.Signals | null; at: number }

class ProxyProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  private waiters: (() => void)[] = [];

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      this.stdout += d;
      this.notify();
    });
    child.stderr.on('data', (d: string) => {
      this.stderr += d;
    });
    // The proxy may exit before reading everything we wrote; that is not this harness's failure.
    child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => {
      resolve({ code, signal, at: performance.now() });
      this.notify();
    }));
  }

  send(message: unknown): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  sendRaw(text: string | Buffer): void {
    this.child.stdin.write(text);
  }

  end(): void {
    this.child.stdin.end();
  }

  /** Complete stdout lines, each parsed; a line that is not JSON throws. */
  messages(): Msg[] {
    const lines = this.stdout.split('\n');
    lines.pop();
    return lines.map((line) => {
      try {
        return JSON.parse(line) as Msg;
      } catch {
        throw new Error(`stdout line is not JSON: ${JSON.stringify(line).slice(0, 200)}`);
      }
    });
  }

  /** Waits for the reply carrying exactly this id (same value and JSON type). */
  async reply(id: unknown): Promise<Msg> {
    await this.until(() => this.messages().some((m) => m.id === id), `a reply with id ${JSON.stringify(id)}`);
    return this.messages().find((m) => m.id === id)!;
  }

  async until(condition: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        if (condition()) return;
        throw new Error(`proxy exited (${this.child.exitCode ?? this.child.signalCode}) while waiting for ${what}; stderr: ${this.stderr}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; stdout: ${this.stdout.slice(0, 500)} stderr: ${this.stderr.slice(0, 500)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Closes stdin and waits for the exit. */
  async finish(): Promise<Exit> {
    this.end();
    return withTimeout(this.exited, WAIT_MS, 'the proxy to exit');
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

const spawned: ProxyProcess[] = [];

function spawnProxy(opts: { url?: string; key?: string; args?: string[] } = {}): ProxyProcess {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.CANVAS_MCP_URL;
  delete env.CANVAS_API_KEY;
  if (opts.url !== undefined) env.CANVAS_MCP_URL = opts.url;
  if (opts.key !== undefined) env.CANVAS_API_KEY = opts.key;
  const child = spawn(process.execPath, [program(ENTRY), ...(opts.args ?? [])], { cwd: ROOT, env, stdio: 'pipe' });
  const p = new ProxyProcess(child);
  spawned.push(p);
  return p;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms))]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function initialize(id: string | number, protocolVersion = '2025-11-25') {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'stdio-proxy-test', version: '1.0.0' } } };
}

const STREAMING_TOOLS = ['blocks.create', 'blocks.build', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview'];

/** STDIO-01/02/04/11: every stdout line is one compact JSON-RPC object, never a batch, never a request. */
function expectCleanStdout(stdout: string): Msg[] {
  expect(stdout === '' || stdout.endsWith('\n')).toBe(true);
  const lines = stdout.split('\n');
  lines.pop();
  return lines.map((line) => {
    expect(line).not.toBe('');
    const value = JSON.parse(line) as unknown;
    expect(JSON.stringify(value)).toBe(line);
    expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
    const m = value as Msg;
    expect(m.jsonrpc).toBe('2.0');
    expect('method' in m && 'id' in m).toBe(false);
    return m;
  });
}

let server: ReferenceServer;
/** Same service, slow streaming: long enough to observe concurrency, shutdown and cancellation. */
let slow: ReferenceServer;

beforeAll(async () => {
  [server, slow] = await Promise.all([startReference(), startReference({ streaming: { steps: 3, stepDelayMs: 200 } })]);
});

afterAll(async () => {
  await Promise.all([server?.close(), slow?.close()]);
});

afterEach(() => {
  for (const p of spawned.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  }
});

describe('stdio proxy: MCP over stdio', () => {
  it('answers initialize with the service\'s InitializeResult and keeps the id', async () => {
    const { apiKey } = await bootstrap(server);
    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.send(initialize('init-1'));
    const reply = await p.reply('init-1');
    expect(reply.error).toBeUndefined();
    expect(reply.result.protocolVersion).toBe('2025-11-25');
    expect(reply.result.serverInfo.name).toBe('canvas-reference');
    expect(reply.result.capabilities.tools).toBeDefined();
    expect((await p.finish()).code).toBe(0);
    expectCleanStdout(p.stdout);
  });

  it('forwards tools/list, which lists the five streaming tools', async () => {
    const { apiKey } = await bootstrap(server);
    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.send(initialize(0));
    await p.reply(0);
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const reply = await p.reply(1);
    const names = (reply.result.tools as { name: string }[]).map((t) => t.name);
    for (const name of STREAMING_TOOLS) expect(names).toContain(name);
    expect(names).toContain('blocks.list');
    expect((await p.finish()).code).toBe(0);
  });

  it('turns a streaming tool call into exactly one line, the final result, equal to the HTTP result', async () => {
    const { apiKey } = await bootstrap(server);
    const args = { expression: '0 9 * * 1-5', from: '2026-01-05T00:00:00Z', count: 3 };
    // Over HTTP the same call streams progress first, so dropping it is something the proxy does.
    const direct = await post(server.mcpUrl, call('schedule.preview', args, { id: 'http', progressToken: 'tok' }), { key: apiKey, headers: { 'mcp-protocol-version': '2025-11-25' } });
    expect(direct.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(direct.messages!.filter((m) => m.method === 'notifications/progress').length).toBeGreaterThan(0);
    const httpFinal = direct.messages!.at(-1)!;

    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.send(initialize(0));
    await p.reply(0);
    p.send(call('schedule.preview', args, { id: 'stream-1', progressToken: 'tok' }));
    const reply = await p.reply('stream-1');
    expect((await p.finish()).code).toBe(0);

    const lines = expectCleanStdout(p.stdout);
    expect(lines).toHaveLength(2);
    expect(lines.some((m) => m.method === 'notifications/progress')).toBe(false);
    expect(reply.result.structuredContent.runs).toEqual(['2026-01-05T09:00:00.000Z', '2026-01-06T09:00:00.000Z', '2026-01-07T09:00:00.000Z']);
    expect({ ...reply, id: 'x' }).toEqual({ ...httpFinal, id: 'x' });
  });

  it('keeps string and integer ids exactly, with requests in flight at the same time', async () => {
    const { apiKey } = await bootstrap(slow);
    const p = spawnProxy({ url: slow.mcpUrl, key: apiKey });
    p.send(initialize('init'));
    await p.reply('init');
    // 1 and "1" are different ids; so are 0 and "0" and "".
    const ids: (string | number)[] = [1, '1', 0, '0', '', -7, 2 ** 31, 'a b', 'ü-ñ-\u2603'];
    for (const id of ids) p.send(call('blocks.create', { title: `title ${JSON.stringify(id)}`, kind: 'text' }, { id, progressToken: `p-${String(id)}` }));
    // Sent after the slow streaming calls, answered before them: the proxy does not serialise.
    p.send({ jsonrpc: '2.0', id: 'quick', method: 'tools/list' });
    const started = performance.now();
    await p.until(() => p.messages().length === ids.length + 2, `${ids.length + 2} replies`);
    const elapsed = performance.now() - started;

    const replies = p.messages().slice(1);
    expect(replies[0]!.id).toBe('quick');
    for (const id of ids) {
      const matching = replies.filter((m) => m.id === id);
      expect(matching, `reply for id ${JSON.stringify(id)}`).toHaveLength(1);
      expect(matching[0]!.result.structuredContent.block.title).toBe(`title ${JSON.stringify(id)}`);
    }
    // Nine calls of three 200 ms steps each take 5.4 s one after another, on any machine (the steps are timers):
    // less than that is proof they overlapped, however slow this machine is.
    expect(elapsed).toBeLessThan(5_000);
    expect((await p.finish()).code).toBe(0);
  });

  it('writes nothing for notifications (notifications/initialized, other notifications)', async () => {
    const { apiKey } = await bootstrap(server);
    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.send(initialize(1));
    await p.reply(1);
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    p.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await p.reply(2);
    const exit = await p.finish();
    expect(exit.code).toBe(0);
    // After exit every reply is in: exactly the two requests were answered.
    expect(expectCleanStdout(p.stdout).map((m) => m.id)).toEqual([1, 2]);
  });

  it('answers a line of invalid JSON with -32700 and id null, then keeps working', async () => {
    const { apiKey } = await bootstrap(server);
    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.sendRaw('{bad json}\n');
    await p.until(() => p.messages().length === 1, 'the parse error');
    expect(p.messages()[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(typeof p.messages()[0]!.error.message).toBe('string');

    p.send({ jsonrpc: '2.0', id: 'after', method: 'tools/list' });
    const reply = await p.reply('after');
    expect(Array.isArray(reply.result.tools)).toBe(true);

    // Invalid UTF-8 is a parse error too; a blank line is skipped; CRLF framing is accepted.
    p.sendRaw(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    p.sendRaw('\n   \n');
    p.sendRaw(`${JSON.stringify({ jsonrpc: '2.0', id: 'crlf', method: 'tools/list' })}\r\n`);
    await p.reply('crlf');
    expect((await p.finish()).code).toBe(0);
    const lines = expectCleanStdout(p.stdout);
    expect(lines.filter((m) => m.error?.code === -32700)).toHaveLength(2);
    expect(lines).toHaveLength(4);
  });

  it('puts nothing but JSON-RPC lines on stdout during a whole session, errors included', async () => {
    const { apiKey } = await bootstrap(server);
    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.send(initialize(1));
    await p.reply(1);
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    p.send(call('blocks.create', { title: 'multi\nline "quoted"', kind: 'text', content: 'a\r\nb\u2028c' }, { id: 3, progressToken: 3 }));
    p.send({ jsonrpc: '2.0', id: 4, method: 'no/such/method' });
    p.send(call('no.such.tool', {}, { id: 5 }));
    p.sendRaw('not json at all\n');
    p.send(call('blocks.list', {}, { id: 6 }));
    await Promise.all([2, 3, 4, 5, 6].map((id) => p.reply(id)));
    expect((await p.finish()).code).toBe(0);

    const lines = expectCleanStdout(p.stdout);
    expect(lines).toHaveLength(7);
    expect(lines.find((m) => m.id === 3)!.result.structuredContent.block.title).toBe('multi\nline "quoted"');
    expect(lines.find((m) => m.id === 4)!.error.code).toBe(-32601);
    expect(lines.find((m) => m.id === 5)!.error.code).toBe(-32602);
    // The startup note is a log line: stderr only.
    expect(p.stdout).not.toContain('canvas-stdio-proxy');
    expect(p.stderr).toContain('canvas-stdio-proxy');
  });

  it('sends the negotiated MCP-Protocol-Version once initialize has answered', async () => {
    const { apiKey } = await bootstrap(server);
    const bad = (id: string) => call('blocks.list', { published: 'yes' }, { id });

    // Without a version header the service assumes 2025-03-26: invalid arguments are a protocol error.
    const before = spawnProxy({ url: server.mcpUrl, key: apiKey });
    before.send(bad('no-init'));
    expect((await before.reply('no-init')).error.code).toBe(-32602);
    await before.finish();

    // After initialize negotiated 2025-11-25 they are a tool result with isError (SEP-1303).
    const after = spawnProxy({ url: server.mcpUrl, key: apiKey });
    after.send(initialize('init'));
    await after.reply('init');
    after.send(bad('with-init'));
    const reply = await after.reply('with-init');
    expect(reply.error).toBeUndefined();
    expect(reply.result.isError).toBe(true);
    expect((await after.finish()).code).toBe(0);
  });

  it('serves a 2026-07-28 client (no initialize, _meta envelope) by deriving the required headers', async () => {
    const { apiKey } = await bootstrap(server);
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    // Over HTTP without MCP-Protocol-Version the service refuses such a request (400 / -32020).
    const bare = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }, { key: apiKey });
    expect(bare.status).toBe(400);

    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.send({ jsonrpc: '2.0', id: 'discover', method: 'server/discover', params: { _meta: meta } });
    const args = { expression: '0 9 * * *', from: '2026-01-01T00:00:00Z', count: 2 };
    p.send({ jsonrpc: '2.0', id: 'preview', method: 'tools/call', params: { name: 'schedule.preview', arguments: args, _meta: { ...meta, progressToken: 'p' } } });
    const discover = await p.reply('discover');
    expect(discover.result.supportedVersions).toContain('2026-07-28');
    const preview = await p.reply('preview');
    expect(preview.result.structuredContent.runs).toEqual(['2026-01-01T09:00:00.000Z', '2026-01-02T09:00:00.000Z']);
    expect((await p.finish()).code).toBe(0);
    expect(expectCleanStdout(p.stdout)).toHaveLength(2);
  });

  it('forwards a JSON-RPC error body that comes with a 4xx status as is', async () => {
    const { apiKey } = await bootstrap(server);
    const message = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: [1] };
    const direct = await post(server.mcpUrl, message, { key: apiKey });
    expect(direct.status).toBe(400);

    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.send(message);
    expect(await p.reply(9)).toEqual(direct.json);
    expect((await p.finish()).code).toBe(0);
  });

  it('gives a server error without an id (413) the id of the request', async () => {
    const small = await startReference({ maxBodyBytes: 2048 });
    try {
      const { apiKey } = await bootstrap(small);
      const p = spawnProxy({ url: small.mcpUrl, key: apiKey });
      p.send(call('blocks.create', { title: 'big', kind: 'text', content: 'x'.repeat(4096) }, { id: 'big' }));
      const reply = await p.reply('big');
      expect(reply.error.code).toBe(-32000);
      expect(reply.error.message).toMatch(/Payload Too Large/);
      expect((await p.finish()).code).toBe(0);
    } finally {
      await small.close();
    }
  });
});

describe('stdio proxy: errors from HTTP', () => {
  it('answers a request made with a revoked key with an error that says so, and a notification with nothing', async () => {
    const { apiKey } = await bootstrap(server);
    const record = server.store.keyByHash(hashKey(apiKey))!;
    expect(server.store.revokeKey(record.id)).toBe(true);

    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    p.send(initialize('revoked'));
    const reply = await p.reply('revoked');
    expect(reply.result).toBeUndefined();
    expect(reply.error.code).toBe(-32001);
    expect(reply.error.message).toMatch(/rejected the API key/);
    expect(reply.error.message).toMatch(/revoked/);
    expect(reply.error.data.httpStatus).toBe(401);
    expect((await p.finish()).code).toBe(0);
    expect(expectCleanStdout(p.stdout)).toHaveLength(1);
  });

  it('answers a request made with an unknown key with a key-rejected error', async () => {
    const unknown = `cnv_live_${'Q'.repeat(40)}`;
    const p = spawnProxy({ url: server.mcpUrl, key: unknown });
    p.send({ jsonrpc: '2.0', id: 77, method: 'tools/list' });
    const reply = await p.reply(77);
    expect(reply.error.code).toBe(-32001);
    expect(reply.error.data.errorDescription).toBe('The API key is not valid.');
    expect((await p.finish()).code).toBe(0);
  });

  it('turns 429 into an error that carries Retry-After', async () => {
    const limited = await startReference({ plans: { trial: { ratePerSecond: 0.2, burst: 1, maxBlocks: 20 } } });
    try {
      const { apiKey } = await bootstrap(limited);
      const p = spawnProxy({ url: limited.mcpUrl, key: apiKey });
      p.send({ jsonrpc: '2.0', id: 'first', method: 'tools/list' });
      expect((await p.reply('first')).result).toBeDefined();
      p.send({ jsonrpc: '2.0', id: 'second', method: 'tools/list' });
      const reply = await p.reply('second');
      expect(reply.error.code).toBe(-31429);
      expect(reply.error.message).toMatch(/Retry-After: \d+/);
      expect(reply.error.data).toMatchObject({ httpStatus: 429, retryAfter: expect.stringMatching(/^\d+$/) });
      expect(reply.error.data.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect((await p.finish()).code).toBe(0);
    } finally {
      await limited.close();
    }
  });

  it('turns a network failure into an error for the request and keeps working', async () => {
    // A port that was free a moment ago: connection refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const p = spawnProxy({ url: `http://127.0.0.1:${port}/api/mcp/v1`, key: `cnv_live_${'Z'.repeat(40)}` });
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    p.send(initialize('down-1'));
    const first = await p.reply('down-1');
    expect(first.error.code).toBe(-32003);
    expect(first.error.message).toMatch(/Could not reach the service/);
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await p.reply(2)).error.code).toBe(-32003);
    expect((await p.finish()).code).toBe(0);
    expect(expectCleanStdout(p.stdout)).toHaveLength(2);
  });
});

describe('stdio proxy: the key stays secret', () => {
  it('never prints the key, on success, on errors, or given on the command line', async () => {
    const { apiKey } = await bootstrap(server);
    const p = spawnProxy({ url: server.mcpUrl, args: ['--api-key', apiKey] });
    p.send(initialize(1));
    await p.reply(1);
    p.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    p.sendRaw(`{"broken": "${apiKey}"\n`);
    // Even a reply that echoes the key back (here a block titled with it) does not show it.
    p.send(call('blocks.create', { title: `echo ${apiKey}`, kind: 'text' }, { id: 3 }));
    await Promise.all([p.reply(2), p.reply(3)]);
    await p.until(() => p.messages().length === 4, 'four lines');
    expect((await p.finish()).code).toBe(0);
    expect(p.messages().find((m) => m.id === 3)!.result.structuredContent.block.title).toBe('echo [redacted]');
    // A key on the command line is visible in ps: the proxy says so.
    expect(p.stderr).toMatch(/ps\b/);

    const revokedKey = (await bootstrap(server)).apiKey;
    server.store.revokeKey(server.store.keyByHash(hashKey(revokedKey))!.id);
    const q = spawnProxy({ url: server.mcpUrl, key: revokedKey });
    q.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((await q.reply(1)).error.code).toBe(-32001);
    expect((await q.finish()).code).toBe(0);

    // A key pasted as a stray argument is not echoed by the usage error.
    const r = spawnProxy({ url: server.mcpUrl, args: [apiKey] });
    expect((await r.finish()).code).toBe(2);

    for (const [proc, key] of [[p, apiKey], [q, revokedKey], [r, apiKey]] as const) {
      expect(proc.stdout).not.toContain(key);
      expect(proc.stderr).not.toContain(key);
      // The secret part alone does not leak either.
      expect(proc.stdout + proc.stderr).not.toContain(key.split('_live_')[1]!);
    }
    expectCleanStdout(p.stdout);
  });
});

describe('stdio proxy: lifecycle', () => {
  it('on end of stdin, delivers the replies in flight, then exits 0 promptly', async () => {
    const { apiKey } = await bootstrap(slow);
    const p = spawnProxy({ url: slow.mcpUrl, key: apiKey });
    p.send(initialize(1));
    await p.reply(1);
    p.send(call('blocks.create', { title: 'last', kind: 'text' }, { id: 'last', progressToken: 'last' }));
    p.end();
    // The streaming call takes about 600 ms: its reply still arrives after stdin has closed.
    const reply = await p.reply('last');
    const replyAt = performance.now();
    expect(reply.result.structuredContent.block.title).toBe('last');
    // Promptly: not after an idle timeout, nor never. The bound is one on a hang, generous for a slow machine.
    const exit = await withTimeout(p.exited, WAIT_MS, 'the proxy to exit');
    expect(exit.code).toBe(0);
    expect(exit.at - replyAt).toBeLessThan(10_000);
  });

  it('exits 0 promptly on end of stdin when nothing is in flight', async () => {
    const { apiKey } = await bootstrap(server);
    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await p.reply(1);
    const closedAt = performance.now();
    const exit = await p.finish();
    expect(exit.code).toBe(0);
    expect(exit.at - closedAt).toBeLessThan(10_000);
  });

  it('answers a last line without a trailing newline before exiting', async () => {
    const { apiKey } = await bootstrap(server);
    const p = spawnProxy({ url: server.mcpUrl, key: apiKey });
    p.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 'tail', method: 'tools/list' }));
    expect((await p.finish()).code).toBe(0);
    expect(expectCleanStdout(p.stdout).map((m) => m.id)).toEqual(['tail']);
  });

  it('exits on SIGTERM', async () => {
    const { apiKey } = await bootstrap(slow);
    const p = spawnProxy({ url: slow.mcpUrl, key: apiKey });
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await p.reply(1);
    p.send(call('blocks.create', { title: 'interrupted', kind: 'text' }, { id: 2 }));
    await sleep(100);
    p.child.kill('SIGTERM');
    const exit = await withTimeout(p.exited, 10_000, 'the proxy to exit on SIGTERM');
    expect(exit.code === 143 || exit.signal === 'SIGTERM').toBe(true);
    expectCleanStdout(p.stdout);
  });

  it('stops a cancelled request and writes no reply for it', async () => {
    const { apiKey } = await bootstrap(slow);
    const created = await post(slow.mcpUrl, call('blocks.create', { title: 'to build', kind: 'text' }), { key: apiKey });
    const blockId = created.messages!.at(-1).result.structuredContent.block.id as string;

    const p = spawnProxy({ url: slow.mcpUrl, key: apiKey });
    p.send(initialize(0));
    await p.reply(0);
    p.send(call('blocks.build', { blockId }, { id: 'build', progressToken: 'build' }));
    await sleep(250);
    p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'build', reason: 'test' } });
    p.send({ jsonrpc: '2.0', id: 'next', method: 'tools/list' });
    await p.reply('next');
    // Past the time the build would have taken (3 x 200 ms).
    await sleep(800);
    expect((await p.finish()).code).toBe(0);
    expect(expectCleanStdout(p.stdout).map((m) => m.id)).toEqual([0, 'next']);
    // Closing the HTTP stream cancelled the build on the service.
    const workspaceId = slow.store.keyByHash(hashKey(apiKey))!.workspaceId;
    expect(slow.store.block(workspaceId, blockId)!.buildStatus).toBe('cancelled');
  });
});

describe('stdio proxy: command line', () => {
  it('exits 2 on an unknown option, with a message on stderr and nothing on stdout', async () => {
    const p = spawnProxy({ url: server.mcpUrl, key: `cnv_live_${'A'.repeat(40)}`, args: ['--bogus'] });
    const exit = await p.finish();
    expect(exit.code).toBe(2);
    expect(p.stderr).toMatch(/Unknown option '--bogus'/);
    expect(p.stdout).toBe('');
  });

  it('exits 2 when the URL or the key is missing, naming the environment variable', async () => {
    const noUrl = spawnProxy({ key: `cnv_live_${'A'.repeat(40)}` });
    const noKey = spawnProxy({ url: server.mcpUrl });
    const badUrl = spawnProxy({ url: 'not a url', key: `cnv_live_${'A'.repeat(40)}` });
    const [a, b, c] = await Promise.all([noUrl.finish(), noKey.finish(), badUrl.finish()]);
    expect([a.code, b.code, c.code]).toEqual([2, 2, 2]);
    expect(noUrl.stderr).toMatch(/CANVAS_MCP_URL/);
    expect(noKey.stderr).toMatch(/CANVAS_API_KEY/);
    expect(badUrl.stderr).toMatch(/not a valid absolute URL/);
    expect(noUrl.stdout + noKey.stdout + badUrl.stdout).toBe('');
  });

  it('--help describes the options and warns that a key on the command line shows in ps', async () => {
    const p = spawnProxy({ args: ['--help'] });
    const exit = await p.finish();
    expect(exit.code).toBe(0);
    expect(p.stdout).toMatch(/--url/);
    expect(p.stdout).toMatch(/--api-key/);
    expect(p.stdout).toMatch(/CANVAS_API_KEY/);
    expect(p.stdout).toMatch(/\(ps\)/);
  });

  it('takes the URL and key from --url and --api-key as well as from the environment', async () => {
    const { apiKey } = await bootstrap(server);
    const p = spawnProxy({ args: ['--url', server.mcpUrl, '--api-key', apiKey] });
    p.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((await p.reply(1)).result.tools.length).toBeGreaterThan(0);
    expect((await p.finish()).code).toBe(0);
  });
});

describe('stdio proxy: request headers (mcpHeaders)', () => {
  const inbound = (message: unknown) => describeLine(JSON.stringify(message), message);
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };

  it('sends the negotiated version for 2025-era messages, nothing before initialize', () => {
    const list = inbound({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(mcpHeaders(list, undefined)).toEqual({});
    expect(mcpHeaders(list, '2025-06-18')).toEqual({ 'mcp-protocol-version': '2025-06-18' });
  });

  it('derives MCP-Protocol-Version, Mcp-Method and Mcp-Name from a 2026-07-28 envelope', () => {
    const toolCall = inbound({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'blocks.list', arguments: {}, _meta: meta } });
    expect(mcpHeaders(toolCall, '2025-11-25')).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'blocks.list' });
    const read = inbound({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'file:///a', _meta: meta } });
    expect(mcpHeaders(read, undefined)['mcp-name']).toBe('file:///a');
    const list = inbound({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta } });
    expect(mcpHeaders(list, undefined)).toEqual({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
  });

  it('uses the Base64 sentinel for values that are not plain visible ASCII', () => {
    expect(fieldValue('blocks.create')).toBe('blocks.create');
    expect(fieldValue('caf\u00e9')).toBe(`=?base64?${Buffer.from('caf\u00e9').toString('base64')}?=`);
    expect(fieldValue(' padded')).toMatch(/^=\?base64\?.*\?=$/);
    expect(fieldValue('=?base64?abc?=')).toBe(`=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`);
    expect(fieldValue('')).toBe('=?base64??=');
  });
});

describe('stdio proxy: line framing (LineSplitter)', () => {
  const texts = (lines: Line[]) => lines.map((l) => (l.kind === 'line' ? l.text : l.kind));

  it('splits on \\n, strips one trailing \\r, and joins a line split across chunks', () => {
    const s = new LineSplitter();
    expect(texts(s.push(Buffer.from('{"a":1}\r\n{"b"')))).toEqual(['{"a":1}']);
    expect(texts(s.push(Buffer.from(':2}\n\r\r\n')))).toEqual(['{"b":2}', '\r']);
    expect(texts(s.end())).toEqual([]);
  });

  it('keeps a multi-byte character split across chunks, and rejects invalid UTF-8', () => {
    const s = new LineSplitter();
    const bytes = Buffer.from('"\u2603"\n');
    expect(s.push(bytes.subarray(0, 2))).toEqual([]);
    expect(texts(s.push(bytes.subarray(2)))).toEqual(['"\u2603"']);
    expect(texts(s.push(Buffer.from([0x22, 0xc3, 0x22, 0x0a])))).toEqual(['invalid-utf8']);
  });

  it('discards an over-long line up to its newline, then carries on', () => {
    const s = new LineSplitter(8);
    expect(texts(s.push(Buffer.from('0123456')))).toEqual([]);
    expect(texts(s.push(Buffer.from('789abc')))).toEqual(['too-long']);
    expect(texts(s.push(Buffer.from('def\nok\n')))).toEqual(['ok']);
  });

  it('returns a last line without a newline at the end of input', () => {
    const s = new LineSplitter();
    expect(s.push(Buffer.from('{"tail":true}'))).toEqual([]);
    expect(texts(s.end())).toEqual(['{"tail":true}']);
  });
});
