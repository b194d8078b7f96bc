import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../service/reference-server/app.js';
import { program } from '../../src/kit/package-root.js';

/** Runs a command of service/ to its end (without blocking this process: the cases below run side by side). */
const command = (script: string, args: string[]) => new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
  execFile(process.execPath, [program(`service/${script}`), ...args], { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) =>
    resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }));
});
const tsx = (script: string, args: string[]) => command(`reference-server/${script}`, args);
const dir = mkdtempSync(join(tmpdir(), 'ref-cli-'));

// Each case starts a command as a user would; side by side (five at a time) they take a third of the time.
describe.concurrent('admin command', { timeout: 90_000 }, () => {
  const db = join(dir, 'admin.db');
  let server: Awaited<ReturnType<typeof startReferenceServer>> | undefined;
  afterAll(() => server?.close());

  it('creates a workspace, mints a key the server accepts, lists without secrets, revokes it', async () => {
    const created = await tsx('admin.ts', ['workspace', 'create', '--db', db, '--name', 'Acme', '--plan', 'team']);
    expect(created.status).toBe(0);
    const { workspace } = JSON.parse(created.stdout);
    const minted = await tsx('admin.ts', ['key', 'mint', '--db', db, '--workspace', workspace.id, '--label', 'ci-runner']);
    expect(minted.status).toBe(0);
    const { id, apiKey } = JSON.parse(minted.stdout);
    expect(apiKey).toMatch(/^cnv_live_[A-Za-z0-9]{40}$/);
    expect(minted.stderr).not.toContain(apiKey);

    server = await startReferenceServer({ dbPath: db });
    const ask = () => fetch(server!.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect((await ask()).status).toBe(200);

    const listed = await tsx('admin.ts', ['key', 'list', '--db', db]);
    expect(listed.stdout).toContain('ci-runner');
    expect(listed.stdout).not.toContain(apiKey);

    expect((await tsx('admin.ts', ['key', 'revoke', '--db', db, '--id', id])).status).toBe(0);
    // Another process revoked it in the shared file; the running server sees it on the next request.
    expect((await ask()).status).toBe(401);
    expect((await tsx('admin.ts', ['key', 'revoke', '--db', db, '--id', id])).status).toBe(2);
  }, 60_000);

  it.each([
    [['key', 'mint'], /--db/],
    [['frobnicate', '--db', join(dir, 'x.db')], /unknown command/],
    [['key', 'list', '--db', join(dir, 'x.db'), '--bogus'], /bogus/],
    [['workspace', 'create', '--db', join(dir, 'y.db'), '--name', 'n', '--plan', 'platinum'], /unknown plan/],
  ])('rejects %j with exit 2 and a message', async (args, message) => {
    const res = await tsx('admin.ts', args);
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(message);
  });

  it('an error that is not bad usage (a database it cannot open) exits 2 with one line, no stack, no usage', async () => {
    const res = await tsx('admin.ts', ['key', 'list', '--db', join(dir, 'no-such-dir', 'x.db')]);
    expect(res.status).toBe(2);
    expect(res.stderr).toBe('error: Cannot open database because the directory does not exist\n');
  });
});

describe.concurrent('reference server command', { timeout: 90_000 }, () => {
  it('prints its base URL and serves', async () => {
    const child = spawn(process.execPath, [program('service/reference-server/main.ts'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => resolve(d.toString().trim()));
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);

  it('takes the public base URL from --public-base-url or PUBLIC_BASE_URL, and binds 0.0.0.0 reachably', async () => {
    for (const [args, env] of [[['--public-base-url', 'https://canvas.example.com'], {}], [[], { PUBLIC_BASE_URL: 'https://canvas.example.com' }]] as const) {
      const child = spawn(process.execPath, [program('service/reference-server/main.ts'), '--host', '0.0.0.0', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on('data', (d: Buffer) => resolve(d.toString().trim()));
          child.on('exit', (code) => reject(new Error(`exited ${code}`)));
        });
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(await (await fetch(`${url}/llms.txt`)).text()).toContain('https://canvas.example.com/api/mcp/v1');
      } finally {
        child.kill('SIGTERM');
      }
    }
  }, 60_000);

  it.each([
    [['--public-base-url', 'https://x.example.com/app'], /publicBaseUrl/],
    [['--bogus'], /bogus/],
    [['--port', 'abc'], /--port/],
    [['--port', ''], /^error: --port must be a whole number from 0 to 65535 \(got ""\)/],
    [['--port', '65536'], /^error: --port must be from 0 to 65535 \(got "65536"\)/],
    [['--smtp', 'http://mail:25'], /^error: --smtp must be an smtp:\/\/ or smtps:\/\/ URL/],
    [['--config', join(dir, 'missing.json')], /cannot read config/],
    [['--config', (() => { const f = join(dir, 'bad.json'); writeFileSync(f, '{nope'); return f; })()], /not valid JSON/],
    [['--config', (() => { const f = join(dir, 'prefix.json'); writeFileSync(f, '{"keyPrefix":"Bad Prefix"}'); return f; })()], /keyPrefix/],
  ])('rejects %j with exit 2 and a message', async (args, message) => {
    const res = await tsx('main.ts', args);
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stderr).toContain('\n\nUsage: npm run reference');
    expect(res.stderr).not.toMatch(/^\s+at /m);
  });
});

describe.concurrent('balancer and SMTP sink commands', { timeout: 90_000 }, () => {
  it.each([
    ['reference-server/balancer.ts', [], /^error: at least one --upstream is required\n\nUsage: /],
    ['reference-server/balancer.ts', ['--upstream', 'https://127.0.0.1:1'], /^error: --upstream must be an http:\/\/ URL \(got "https:\/\/127\.0\.0\.1:1"\)\n\nUsage: /],
    ['reference-server/balancer.ts', ['--upstream', 'http://127.0.0.1:1', '--port', '-1'], /^error: Option '--port' argument is ambiguous/],
    ['reference-server/balancer.ts', ['--upstream', 'http://127.0.0.1:1', '--port=1.5'], /^error: --port must be a whole number from 0 to 65535/],
    ['smtp-sink/main.ts', ['--http-port', ''], /^error: --http-port must be a whole number from 0 to 65535 \(got ""\)\n\nUsage: /],
    ['smtp-sink/main.ts', ['--smtp-port', '70000'], /^error: --smtp-port must be from 0 to 65535/],
  ])('%s %j exits 2 with the message', async (script, args, message) => {
    const res = await command(script, args);
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(message);
  });
});
