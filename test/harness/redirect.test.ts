import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RunState } from '../../src/engine/run-state.js';
import { mutant } from '../../service/mutants/index.js';
import { REDIRECT_ORIGIN_ENV } from '../../service/mutants/redirect.js';
import type { Mutant } from '../../service/mutants/mutant.js';
import { ProbeClient } from '../../load/probe/client.js';
import { runConformanceChild } from '../../scripts/conformance-runs.js';
import { CheckFailure } from '../../src/engine/verdict.js';
import { WireClient } from '../../src/wire/client.js';
import type { Exchange } from '../../src/wire/exchange.js';
import { noRedirectFetch, RedirectRefused, refuseRedirect } from '../../src/wire/redirect.js';

// Issue 13: no request leaves the target's origin. A redirecting loopback server points at a recording
// server on another port (another origin); every client of the harness must leave the recorder untouched.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KEY = `cnv_live_${'s3cr3t'.repeat(6)}`;
const MCP = '/api/mcp/v1';

interface Seen { method: string; url: string; headers: IncomingHttpHeaders; body?: string }
interface Running { server: Server; origin: string; seen: Seen[] }

async function listen(handler: (seen: Seen[]) => Parameters<typeof createServer>[1]): Promise<Running> {
  const seen: Seen[] = [];
  const server = createServer(handler(seen));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

let recorder: Running;
/** Answers everything with 307 to the recorder (same path), or to `?to=` on its own origin. */
let redirector: Running;

beforeAll(async () => {
  recorder = await listen((seen) => async (req, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}');
  });
  redirector = await listen((seen) => (req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    req.resume();
    const u = new URL(req.url!, 'http://x');
    const same = u.searchParams.get('same');
    const location = same !== null ? same : `${recorder.origin}${u.pathname}${u.searchParams.has('leak') ? `?k=${KEY}` : ''}`;
    res.writeHead(Number(u.searchParams.get('status') ?? 307), { location, 'content-length': '0' }).end();
  });
});

afterAll(async () => {
  await Promise.all([recorder, redirector].map((s) => new Promise((r) => s?.server.close(r))));
});

beforeEach(() => {
  recorder.seen.length = 0;
  redirector.seen.length = 0;
});

describe('refuseRedirect', () => {
  const url = `http://127.0.0.1:1${MCP}`;
  it('refuses a redirect to another origin for every method, and any redirect of a POST', () => {
    const cross = refuseRedirect('POST', url, 307, 'http://127.0.0.1:2/api/mcp/v1')!;
    expect(cross).toBeInstanceOf(RedirectRefused);
    expect(cross).toBeInstanceOf(CheckFailure); // a verdict on the service, not the harness's error
    expect(cross.message).toBe('the service redirected POST /api/mcp/v1 to http://127.0.0.1:2/api/mcp/v1 (HTTP 307, another origin): not followed');
    expect(refuseRedirect('GET', url, 302, 'https://elsewhere.example/')?.crossOrigin).toBe(true);
    expect(refuseRedirect('POST', url, 308, '/api/mcp/v2')?.message).toMatch(/to http:\/\/127\.0\.0\.1:1\/api\/mcp\/v2 \(HTTP 308, the same origin\)/);
    expect(refuseRedirect('POST', url, 301, undefined)?.message).toMatch(/without a Location/);
  });

  it('leaves a same-origin GET redirect, a 304 and other statuses to the check; hides keys in the Location', () => {
    expect(refuseRedirect('GET', url, 302, '/login')).toBeUndefined();
    // A human's page (the claim link) may send the browser to a sign-in host: never followed, not a failure.
    expect(refuseRedirect('GET', 'http://127.0.0.1:1/claim/abc', 302, 'https://accounts.example/login')).toBeUndefined();
    expect(refuseRedirect('POST', url, 304, 'http://127.0.0.1:2/')).toBeUndefined();
    expect(refuseRedirect('POST', url, 200, 'http://127.0.0.1:2/')).toBeUndefined();
    const leak = refuseRedirect('POST', url, 307, `http://127.0.0.1:2/?k=${KEY}`, [KEY])!;
    expect(JSON.stringify({ m: leak.message, a: leak.actual })).not.toContain(KEY);
  });
});

describe('the wire client', () => {
  it('does not follow a cross-origin 307: it throws the refusal, records the 3xx, and nothing reaches the other origin', async () => {
    const log: Exchange[] = [];
    const http = new WireClient(log, () => [KEY], { timeoutMs: 5_000, pace: false, run: new RunState() });
    const sent = http.request(`${redirector.origin}${MCP}?leak`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    await expect(sent).rejects.toThrow(/^the service redirected POST \/api\/mcp\/v1 to http:\/\/127\.0\.0\.1:\d+\/api\/mcp\/v1\?k=(\[REDACTED[^)]*|<key#\d+> )\(HTTP 307, another origin\): not followed$/);
    expect(redirector.seen).toHaveLength(1);
    expect(recorder.seen).toEqual([]);
    expect(log).toHaveLength(1);
    expect(log[0]!.response?.status).toBe(307);
    expect(log[0]!.error).toMatch(/^RedirectRefused: the service redirected POST/);
    expect(JSON.stringify(log)).not.toContain(KEY);
  });

  it('refuses a same-origin redirect of a POST; hands a same-origin GET redirect back unfollowed', async () => {
    const http = new WireClient([], () => [KEY], { timeoutMs: 5_000, pace: false, run: new RunState() });
    await expect(http.request(`${redirector.origin}${MCP}?same=/other`, { method: 'POST', json: {} })).rejects.toThrow(/\(HTTP 307, the same origin\): not followed/);
    const res = await http.request(`${redirector.origin}/claim?status=302&same=/login`, { method: 'GET' });
    expect([res.status, res.headers.location]).toEqual([302, '/login']);
    expect(redirector.seen.map((s) => s.url)).toEqual([`${MCP}?same=/other`, '/claim?status=302&same=/login']);
    expect(recorder.seen).toEqual([]);
  });
});

describe('the SDK transport fetch', () => {
  it('a plain fetch follows a 307 with the body and headers (the reported leak; the recorder works), the harness fetch does not', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
    const init = { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'x-workspace-header': 'sent along', 'content-type': 'application/json' }, body };
    const followed = await fetch(`${redirector.origin}${MCP}`, init);
    expect(followed.status).toBe(200);
    // Node's fetch drops Authorization across origins, but the body and every other header (a `--header`) go.
    expect(recorder.seen.map((s) => [s.method, s.body, s.headers['x-workspace-header']])).toEqual([['POST', body, 'sent along']]);
    recorder.seen.length = 0;
    const refused: RedirectRefused[] = [];
    const guarded = noRedirectFetch(fetch, () => [KEY], (r) => refused.push(r));
    await expect(guarded(`${redirector.origin}${MCP}`, init)).rejects.toBeInstanceOf(RedirectRefused);
    expect(refused.map((r) => [r.status, r.crossOrigin])).toEqual([[307, true]]);
    expect(recorder.seen).toEqual([]);
  });
});

describe('the official SDK client', () => {
  // SDK 2.4 refuses cross-origin redirects by default (redirectPolicy 'same-origin'); with 'follow' (earlier
  // versions' behaviour, the reported leak) the harness's fetch is what keeps the request home.
  async function connect(fetchImpl: (input: string | URL, init?: RequestInit) => Promise<Response>): Promise<string> {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'redirect-test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${redirector.origin}${MCP}`), {
      requestInit: { headers: { authorization: `Bearer ${KEY}` } }, fetch: fetchImpl, redirectPolicy: 'follow',
    });
    try {
      await client.connect(transport, { timeout: 2_000 });
      return 'connected';
    } catch (err) {
      return (err as Error).message;
    } finally {
      await client.close().catch(() => {});
    }
  }

  it('following redirects, it sends initialize to the other origin; with the harness fetch nothing goes there', async () => {
    await connect(fetch);
    expect(recorder.seen.map((s) => [s.method, JSON.parse(s.body!).method])).toEqual([['POST', 'initialize']]);
    recorder.seen.length = 0;
    expect(await connect(noRedirectFetch(fetch, () => [KEY]))).toMatch(/redirected POST \/api\/mcp\/v1 to .*another origin\): not followed/);
    expect(recorder.seen).toEqual([]);
  });
});

describe('undici clients (targets, preflight) and the probe client', () => {
  it('undici request hands a 307 back without following it', async () => {
    const res = await request(`${redirector.origin}${MCP}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{}' });
    await res.body.dump();
    expect(res.statusCode).toBe(307);
    expect(recorder.seen).toEqual([]);
  });

  it('the probe client records a 307 with the refusal as its error, and sends nothing to the Location', async () => {
    const probe = new ProbeClient({ baseUrl: redirector.origin, connections: 2, maxRequests: 3, timeoutMs: 5_000 });
    try {
      const replies = await Promise.all([probe.send(KEY), probe.send(KEY)]);
      for (const r of replies) {
        expect(r.status).toBe(307);
        expect(r.error).toMatch(/^the service redirected POST \/api\/mcp\/v1 to http:\/\/127\.0\.0\.1:\d+\/api\/mcp\/v1 \(HTTP 307, another origin\): not followed$/);
      }
    } finally {
      await probe.close();
    }
    expect(redirector.seen).toHaveLength(2);
    expect(recorder.seen).toEqual([]);
  });
});

describe('k6 scripts', () => {
  it('set maxRedirects 0 in their options (k6 follows 10 by default)', () => {
    const k6 = join(ROOT, '.tools/bin/k6');
    if (!existsSync(k6)) execFileSync('bash', ['scripts/install-k6.sh'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
    for (const script of ['load/k6/smoke.ts', 'load/k6/stateless-post.ts']) {
      const options = JSON.parse(execFileSync(k6, ['inspect', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, MCP_API_KEY: '' } })) as { maxRedirects: unknown };
      expect(options.maxRedirects, script).toBe(0);
    }
  }, 60_000);
});

describe('conformance runs', () => {
  it('the redirect mutant fails origin-no-cross-origin-redirect and the SDK interop rows (in-process and the matrix); nothing reaches the other origin', async () => {
    const m = mutant('mcp-redirect-cross-origin') as Mutant;
    const run = await runConformanceChild(['--mutant', m.name, '--only', 'origin-,interop-', '--seed', '1'], 120_000, undefined, { [REDIRECT_ORIGIN_ENV]: recorder.origin });
    // First: the other origin saw nothing (the SDK's fetch would have followed the 307 there, with the body).
    expect(recorder.seen, 'requests that reached the other origin').toEqual([]);
    expect(run.code, run.stderr).toBe(1);
    const rows = new Map(run.results!.requirements.map((r) => [r.id, r]));
    const origin = rows.get('origin-no-cross-origin-redirect')!;
    expect(origin.status).toBe('fail');
    expect(origin.checks.filter((c) => c.status === 'fail').map((c) => c.message).join('\n')).toMatch(m.plants);
    // The official SDK client connects (initialize is answered), then meets the 307 on tools/list and stops.
    const interop = [...rows.values()].filter((r) => r.id.startsWith('interop-sdk-'));
    expect(interop.map((r) => [r.id, r.status])).toEqual(interop.map((r) => [r.id, 'fail']));
    for (const r of interop) for (const c of r.checks) expect(c.message, `${r.id}: ${c.name}`).toMatch(/redirected POST \/api\/mcp\/v1 to .*another origin\): not followed/);
    // The matrix's client programs get the 307 without its Location (none can follow it): every row that needs
    // the endpoint fails; only the bad-key rows pass (the wrong key is refused before any redirect).
    const matrix = [...rows.values()].filter((r) => /^interop-(ts-v1|ts-v2|python|go)-/.test(r.id));
    expect(matrix).toHaveLength(20);
    expect(matrix.map((r) => [r.id, r.status])).toEqual(matrix.map((r) => [r.id, r.id.endsWith('-bad-key') ? 'pass' : 'fail']));
    const outputs = { stdout: run.stdout, stderr: run.stderr, results: readFileSync(join(run.reportDir, 'results.json'), 'utf8') };
    for (const [name, text] of Object.entries(outputs)) expect(text, name).not.toMatch(/_live_[A-Za-z0-9]{8,}/);
  }, 150_000);

  it('the reference passes origin-no-cross-origin-redirect', async () => {
    const run = await runConformanceChild(['--only', 'origin-', '--seed', '1'], 120_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.results!.requirements.find((r) => r.id === 'origin-no-cross-origin-redirect')?.status).toBe('pass');
  }, 150_000);
});
