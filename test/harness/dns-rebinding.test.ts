import { mkdtempSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Middleware } from '../../service/reference-server/app.js';
import { startReferenceServer, type ReferenceServer } from '../../service/reference-server/app.js';
import { freePort } from '../../src/kit/free-port.js';
import type { Results } from '../../src/engine/results.js';
import { runCli } from './run-cli.js';

/**
 * The dns-rebinding rows on servers of this test's own: a faithful loopback twin that refuses a foreign Host
 * with 421 (as the Python SDK does: MCP demands 403 only of an invalid Origin), and the reference reached at
 * a non-loopback address, where an Origin is known invalid only when the profile declares "allowedOrigins".
 */
const ROWS = ['dns-rebinding-origin-validated', 'dns-rebinding-origin-403', 'dns-rebinding-host-validated'];

const rows = (r: Results | undefined) => Object.fromEntries(ROWS.map((id) => {
  const row = r!.requirements.find((x) => x.id === id)!;
  return [id, { status: row.status, notApplicable: row.checks.every((c) => c.notApplicable), text: row.checks.map((c) => `${c.message ?? ''} ${c.reason ?? ''}`).join(' | ') }];
}));

async function judge(baseUrl: string, extra: string[] = []) {
  const run = await runCli(['--base-url', baseUrl, '--seed', '1', '--only', 'dns-rebinding', ...extra], 120_000);
  expect(run.results, run.stderr).toBeDefined();
  return { code: run.code, rows: rows(run.results) };
}

/** A profile for --base-url that declares the origins a deployment serves browsers from. */
function declaringProfile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'dns-rebinding-')), 'profile.json');
  writeFileSync(path, JSON.stringify({ name: 'declared-origins', kind: 'service', derive: true, allowedOrigins: ['https://app.example.com'] }));
  return path;
}

const misdirected: Middleware = (_service, next) => async (req, res) => {
  const host = new URL(`http://${req.headers.host ?? ''}`).hostname;
  if (['127.0.0.1', 'localhost', '[::1]'].includes(host)) return next(req, res);
  req.resume();
  res.writeHead(421, { 'content-type': 'text/plain' });
  res.end('Invalid Host header');
};

const withServer = async (start: () => Promise<ReferenceServer>, body: (s: ReferenceServer) => Promise<void>) => {
  const server = await start();
  try {
    await body(server);
  } finally {
    await server.close();
  }
};

it('a loopback twin that refuses a foreign Host with 421 and a foreign Origin with 403 passes every row', async () => {
  await withServer(() => startReferenceServer({}, { middleware: misdirected }), async (s) => {
    const { code, rows: r } = await judge(s.baseUrl);
    for (const id of ROWS) expect(r[id]!.status, `${id}: ${r[id]!.text}`).toBe('pass');
    expect(code).toBe(0);
  });
}, 180_000);

const address = Object.values(networkInterfaces()).flat().find((a) => a && !a.internal && a.family === 'IPv4')?.address;

describe.runIf(address !== undefined)('a target not served on loopback', () => {
  /** The reference on every interface, reached at this machine's own address: a deployment's shape. */
  const startPublic = (middleware?: Middleware) => async () => {
    const port = await freePort();
    return startReferenceServer({ host: '0.0.0.0', port, publicBaseUrl: `http://${address}:${port}` }, middleware ? { middleware } : {});
  };
  const publicUrl = (s: ReferenceServer) => s.baseUrl.replace('127.0.0.1', address!);

  it('undeclared origins: the rows are not applicable, saying what a foreign Origin got and how to judge it', async () => {
    await withServer(startPublic(), async (s) => {
      const { code, rows: r } = await judge(publicUrl(s));
      for (const id of ROWS) expect(r[id]!.notApplicable, `${id}: ${r[id]!.status} ${r[id]!.text}`).toBe(true);
      expect(r['dns-rebinding-origin-validated']!.text).toMatch(/declares no "allowedOrigins".*answered HTTP 403/);
      expect(r['dns-rebinding-host-validated']!.text).toContain('not served on loopback');
      expect(code).toBe(0);
    });
  }, 180_000);

  it('declared origins: a foreign Origin answered 403 passes the Origin rows', async () => {
    await withServer(startPublic(), async (s) => {
      const { rows: r } = await judge(publicUrl(s), ['--profile', declaringProfile()]);
      expect(r['dns-rebinding-origin-validated']!.status).toBe('pass');
      expect(r['dns-rebinding-origin-403']!.status).toBe('pass');
      expect(r['dns-rebinding-host-validated']!.notApplicable).toBe(true);
    });
  }, 180_000);

  it('declared origins: a server that serves any Origin fails both Origin rows', async () => {
    const anyOrigin: Middleware = (_service, next) => (req, res) => {
      delete req.headers.origin;
      return next(req, res);
    };
    await withServer(startPublic(anyOrigin), async (s) => {
      const { code, rows: r } = await judge(publicUrl(s), ['--profile', declaringProfile()]);
      expect(r['dns-rebinding-origin-validated']!.status).toBe('fail');
      expect(r['dns-rebinding-origin-validated']!.text).toMatch(/Origin http:\/\/evil\.example:\d+ and the target's Host .* is refused \(HTTP 200\)/);
      expect(r['dns-rebinding-origin-403']!.status).toBe('fail');
      expect(code).toBe(1);
    });
  }, 180_000);
});
