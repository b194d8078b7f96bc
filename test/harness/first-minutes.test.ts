import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/kit/free-port.js';
import { PACKAGE_ROOT, program } from '../../src/kit/package-root.js';
import { startReference, type ReferenceServer } from '../helpers/reference.js';
import { runCommand } from '../helpers/run-command.js';

const version = (await import('../../package.json', { with: { type: 'json' } })).default.version;

/** Runs a command line to its end: `node <file> ...args`, or any `command` (npm), in `cwd` (the package's by default). */
const run = (command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  runCommand(command, args, { cwd: options.cwd ?? PACKAGE_ROOT, env: { ...process.env, ...options.env } });

/** The package's executable, as npx runs it. */
const bin = (...args: string[]) => run(process.execPath, [program('src/cli/bin.ts'), ...args]);

describe.concurrent('one executable: mcp-canvas-harness <command>', { timeout: 60_000 }, () => {
  it('--version, alone or after a command, prints the package version and exits 0', async () => {
    for (const args of [['--version'], ['conformance', '--version'], ['probe', '--version']]) {
      const out = await bin(...args);
      expect(out.code, args.join(' ')).toBe(0);
      expect(out.stdout.trim()).toBe(`mcp-canvas-harness ${version}`);
    }
  });

  it('an unknown command exits 2 naming the commands; no command prints the usage', async () => {
    // Not a property of an object either: `constructor` is no command.
    expect((await bin('constructor')).code).toBe(2);
    const wrong = await bin('conformnce');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('error: unknown command "conformnce"; the commands: conformance, load, k6, probe, capacity, reference, stdio-proxy');
    const none = await bin();
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/^Usage: mcp-canvas-harness <command> \[options\]/);
  });

  it('each command\'s help names the executable, not npm run', async () => {
    for (const [command, usage] of [['conformance', 'conformance [options]'], ['load', 'load [options]'], ['k6', 'k6 [options]'], ['probe', 'probe [options]'], ['reference', 'reference [--port'], ['stdio-proxy', 'stdio-proxy [--url']]) {
      const out = await bin(command!, '--help');
      expect(out.code, command).toBe(0);
      expect(out.stdout, command).toContain(`Usage: mcp-canvas-harness ${usage}`);
    }
  });

  it('conformance --list prints the selected requirements and sends nothing; --json as a JSON array', async () => {
    const text = await bin('conformance', '--list', '--only', 'auth-missing-key-401,bootstrap-returns-key');
    expect(text.code).toBe(0);
    const all = text.stdout.trim().split('\n');
    const lines = all.filter((l) => !l.startsWith('    '));
    // In the catalog's order (bootstrap's rows come first), not the order asked for.
    expect(lines[0]).toMatch(/^bootstrap-returns-key\s+MUST\s+bootstrap\s+Response: includes `apiKey`/);
    expect(lines[1]).toMatch(/^auth-missing-key-401\s+MUST\s+auth\s+\S/);
    expect(lines[2]).toBe('2 requirements (2 MUST, 0 SHOULD, 0 MAY, 0 INFO), profile reference');
    // Each row is followed by the checks that judge it, read off the suites' records.
    const underAuth = all.slice(all.indexOf(lines[1]!) + 1, all.indexOf(lines[2]!));
    expect(underAuth.length).toBeGreaterThan(0);
    for (const l of underAuth) expect(l).toMatch(/^ {4}check: .+ \(suites\/[a-z/-]+\.suite\.ts > .+\)$/);
    expect(underAuth.some((l) => l.endsWith('(suites/auth.suite.ts > auth)'))).toBe(true);
    const json = await bin('conformance', '--list', '--json', '--only', 'auth-');
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as { id: string; level: string; group: string; text: string; source: string }[];
    expect(rows.length).toBeGreaterThan(5);
    for (const r of rows) expect(r).toMatchObject({ id: expect.stringMatching(/^auth-/), level: expect.stringMatching(/^(MUST|SHOULD|MAY|INFO)$/), group: expect.any(String), text: expect.any(String), source: expect.any(String) });
    expect((rows as unknown as { checks: { name: string; suite: string }[] }[]).every((r) => r.checks.length > 0)).toBe(true);
    // The generic profile lists only the rows that hold for any MCP server.
    const generic = JSON.parse((await bin('conformance', '--list', '--json', '--profile', 'generic')).stdout) as { generic?: boolean }[];
    expect(generic.length).toBeGreaterThan(0);
    expect(generic.every((r) => r.generic === true)).toBe(true);
    // The whole list, well over a pipe's 64 KiB, arrives whole through a shell's pipe (a pipe(2), not the
    // socket pair a spawned child gets): the command waits for stdout before it exits.
    const whole = await run('sh', ['-c', `"${process.execPath}" "${program('src/cli/bin.ts')}" conformance --list --json | cat`]);
    expect(whole.stdout.length).toBeGreaterThan(65_536);
    expect((JSON.parse(whole.stdout) as unknown[]).length).toBeGreaterThan(150);
  });

  it('--list with an empty selection, and --json without --list, exit 2', async () => {
    const empty = await bin('conformance', '--list', '--only', 'no-such-row');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('error: --only no-such-row selects no requirement');
    const json = await bin('conformance', '--json');
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('error: --json goes with --list');
  });
});

/** Before the first bootstrap or write: mistakes of the command line cost the deployment nothing. */
describe.concurrent('checks before spending', { timeout: 60_000 }, () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReference();
  });
  afterAll(() => server.close());

  it('a key the service refuses exits 2 with the option that gave it; no bootstrap is sent', async () => {
    const key = `${server.config.keyPrefix}_live_${'A'.repeat(32)}`;
    for (const option of ['--api-key', '--other-key']) {
      const mails = server.outbox.length;
      const out = await bin('conformance', '--base-url', server.baseUrl, option, key, '--report-dir', mkdtempSync(join(tmpdir(), 'first-')));
      expect(out.code, option).toBe(2);
      expect(out.stderr).toContain(`error: the service refused the key given with ${option} (401 to tools/list at ${server.mcpUrl})`);
      expect(out.stderr + out.stdout).not.toContain(key.slice(-16));
      expect(server.outbox.length, 'claim mails: no bootstrap went out').toBe(mails);
    }
  });

  it('a refused key from MCP_API_KEY or MCP_OTHER_KEY is named by its variable, not as given with an option', async () => {
    const key = `${server.config.keyPrefix}_live_${'B'.repeat(32)}`;
    for (const env of ['MCP_API_KEY', 'MCP_OTHER_KEY']) {
      const out = await run(process.execPath, [program('src/cli/bin.ts'), 'conformance', '--base-url', server.baseUrl, '--report-dir', mkdtempSync(join(tmpdir(), 'first-'))], { env: { [env]: key } });
      expect(out.code, env).toBe(2);
      expect(out.stderr).toContain(`error: the service refused the key from the environment variable ${env} (401 to tools/list at ${server.mcpUrl})`);
      expect(out.stderr).not.toContain('given with');
      expect(out.stderr + out.stdout).not.toContain(key.slice(-16));
    }
  });

  it('the MCP endpoint given as --base-url exits 2 with the origin to give instead', async () => {
    const out = await bin('conformance', '--base-url', server.mcpUrl, '--report-dir', mkdtempSync(join(tmpdir(), 'first-')));
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`--base-url is the service's root, and ${server.mcpUrl} has a path (/api/mcp/v1); give its origin, --base-url ${server.baseUrl}`);
  });

  it('a report folder that cannot be written exits 2 before any request', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'first-')), 'a-file');
    writeFileSync(file, '');
    const mails = server.outbox.length;
    const out = await bin('conformance', '--base-url', server.baseUrl, '--report-dir', join(file, 'reports'));
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`error: cannot write the reports to ${join(file, 'reports')} (ENOTDIR)`);
    expect(server.outbox.length).toBe(mails);
  });
});

describe('the report folder from the environment', () => {
  // The harness image sets HARNESS_REPORT_DIR=/reports, its mounted folder: a command line without --report-dir writes there.
  it('HARNESS_REPORT_DIR is the default; --report-dir still wins', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'env-dir-'));
    const viaEnv = await run(process.execPath, [program('src/cli/bin.ts'), 'conformance', '--only', 'discovery-llms-txt-h1', '--quiet'], { env: { HARNESS_REPORT_DIR: dir } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(existsSync(join(dir, 'results.json'))).toBe(true);
    const given = join(dir, 'given');
    const viaOption = await run(process.execPath, [program('src/cli/bin.ts'), 'conformance', '--only', 'discovery-llms-txt-h1', '--quiet', '--report-dir', given], { env: { HARNESS_REPORT_DIR: dir } });
    expect(viaOption.code, viaOption.stderr).toBe(0);
    expect(existsSync(join(given, 'results.json'))).toBe(true);
  }, 60_000);
});

describe('npm run from another folder', () => {
  // npm runs a script in the package's folder: a relative path the person typed is theirs all the same.
  it('puts a relative --report-dir in the caller\'s folder', async () => {
    const caller = mkdtempSync(join(tmpdir(), 'caller-'));
    const out = await run('npm', ['--prefix', PACKAGE_ROOT, 'run', '-s', 'conformance', '--', '--only', 'discovery-llms-txt-h1', '--report-dir', 'mine', '--quiet'], { cwd: caller });
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(join(caller, 'mine', 'results.json'))).toBe(true);
    expect(existsSync(join(PACKAGE_ROOT, 'mine'))).toBe(false);
  }, 60_000);
});

/** What a person reads first under the verdict, on stdout: why each row fails, how to replay it, what went unexercised. */
describe.concurrent('the console after a run', { timeout: 90_000 }, () => {
  it('names each failing requirement with its level, its check\'s message, expected and actual, and the replay command', async () => {
    const out = await bin('conformance', '--mutant', 'auth-missing-key-accepted', '--only', 'auth-missing-key-401', '--seed', '1', '--report-dir', mkdtempSync(join(tmpdir(), 'first-')));
    expect(out.code, out.stderr).toBe(1);
    const lines = out.stdout.split('\n');
    expect(lines[0]).toBe('does not conform: 1 requirement(s) fail: auth-missing-key-401');
    expect(lines[1]).toBe('failing requirements (1):');
    expect(lines[2]).toMatch(/^ {2}MUST auth-missing-key-401: every variant is rejected with 401 \(tools\/list: 200;/);
    expect(lines[3]).toBe('      expected 401');
    expect(lines[4]).toMatch(/^ {6}actual {3}\["tools\/list: 200"/);
    // Through the executable in a checkout, the replay is the checkout's npm script (issue 36: a line that runs
    // where the person is; an installed package's is `npx mcp-canvas-harness ...`, test/packaging/pack-install.test.ts).
    expect(lines[5]).toBe('      replay: npm run conformance -- --target embedded --mutant auth-missing-key-accepted --only auth-missing-key-401 --seed 1');
    expect(lines[6]).toMatch(/^requirements: 0 pass, 1 fail, 0 warn, 0 not testable, 0 untested; \d+ check runs \(\d+\.\d s\)$/);
    // The progress lines on stderr count checks, and say so.
    expect(out.stderr).toMatch(/^auth checks: \d+ pass, 1 fail, 0 warn, 0 not testable \(\d+\.\d s\)$/m);
  });

  it('lists the MUST rows no check could exercise, with the reason, under a run that conforms', async () => {
    const server = await startReference();
    try {
      const out = await bin('conformance', '--base-url', server.baseUrl, '--bootstrap-budget', '0', '--only', 'calls-', '--seed', '1', '--report-dir', mkdtempSync(join(tmpdir(), 'first-')));
      expect(out.code, out.stderr).toBe(0);
      const lines = out.stdout.split('\n');
      expect(lines[0]).toMatch(/^conforms: /);
      expect(lines[1]).toMatch(/^not exercised: \d+ MUST requirements \(every check not testable; --strict fails the run on them\):$/);
      expect(lines[2]).toMatch(/^ {2}calls-[a-z0-9-]+: .*no API key: the bootstrap budget \(0\) allows no bootstrap/);
    } finally {
      await server.close();
    }
  });
});

/**
 * Issue 35 item 8: `python3 -m http.server` as --base-url got "does not conform: 23 requirement(s) fail" after
 * 11 bootstrap POSTs. A server that is not MCP gets no verdict (exit 2, one line why) after its first request.
 */
describe('a server that is not MCP', { timeout: 60_000 }, () => {
  let python: ReturnType<typeof spawn> | undefined;
  let web: Server | undefined;
  let pythonUrl = '';
  let webUrl = '';
  const pythonLog: string[] = [];
  let webRequests = 0;
  beforeAll(async () => {
    // A plain static file server as it is found in the field, answering POST with an HTML 501.
    const port = await freePort();
    python = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', mkdtempSync(join(tmpdir(), 'static-'))], { stdio: ['ignore', 'ignore', 'pipe'] });
    python.stderr!.on('data', (d: Buffer) => pythonLog.push(...d.toString().split('\n').filter((l) => / "(GET|POST|DELETE) /.test(l))));
    pythonUrl = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(pythonUrl);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    pythonLog.length = 0;
    // A web application that answers everything 200 with a page.
    web = createServer((_req, res) => {
      webRequests += 1;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Welcome</title><p>Sign in</p>');
    });
    await new Promise<void>((resolve) => web!.listen(0, '127.0.0.1', resolve));
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    python?.kill();
    web?.close();
  });

  it('python3 -m http.server, as --base-url or --mcp-url: exit 2 naming the answer, one request each, no report of a verdict', async () => {
    for (const args of [['--base-url', pythonUrl], ['--mcp-url', `${pythonUrl}/mcp`]]) {
      const before = pythonLog.length;
      const dir = mkdtempSync(join(tmpdir(), 'not-mcp-'));
      const out = await bin('conformance', ...args, '--report-dir', dir);
      expect(out.code, out.stdout + out.stderr).toBe(2);
      expect(out.stderr).toMatch(/^error: http:\/\/127\.0\.0\.1:\d+\/(api\/mcp\/v1|mcp) answered 501 \(text\/html\) to a POST: an MCP endpoint takes JSON-RPC by POST: is .* Nothing was judged and nothing more was sent/m);
      // (The readiness GET may be logged late: only the POSTs count.)
      expect(pythonLog.slice(before).filter((l) => /"POST /.test(l)), 'one POST, no bootstrap').toEqual([expect.stringMatching(/"POST \/(api\/mcp\/v1|mcp) HTTP/)]);
      expect(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')).verdict).toMatch(/^no verdict: /);
    }
  });

  it('a web page answered with 200: exit 2, one request', async () => {
    const out = await bin('conformance', '--mcp-url', `${webUrl}/mcp`, '--report-dir', mkdtempSync(join(tmpdir(), 'not-mcp-')));
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('answered 200 (text/html) with a web page, not JSON-RPC');
    expect(webRequests).toBe(1);
  });
});
