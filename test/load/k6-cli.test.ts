import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { K6LoadReport } from '../../load/k6/summary.ts';
import { UNTHROTTLED } from '../../load/target.ts';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.ts';
import { program } from '../../src/kit/package-root.js';
import { LOAD_K6_USAGE, readLoadK6Options } from '../../src/cli/load-k6-options.js';
import { commandLineOutcome } from '../helpers/command-line-outcome.js';

// `npm run load:k6` for real: k6 (the pinned build in .tools/bin) against the reference server. k6 missing
// is a failure, never a skip: beforeAll builds it with the project script (about a minute when missing).

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
let server: ReferenceServer;
let apiKey: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  dir: string;
  files: Record<string, string>;
}

/** Runs the CLI as a child process; resolves with its exit code, output and the files it wrote. */
function loadK6(args: string[]): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'load-k6-'));
  dirs.push(dir);
  const env = { ...process.env };
  delete env.MCP_API_KEY;
  return new Promise((resolve) => {
    execFile(process.execPath, [program('src/cli/load-k6.ts'), ...args, '--report-dir', dir], { cwd: ROOT, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const files: Record<string, string> = {};
        for (const f of ['k6-summary.json', 'k6-junit.xml', 'load-k6.json']) if (existsSync(join(dir, f))) files[f] = readFileSync(join(dir, f), 'utf8');
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr, dir, files });
      });
  });
}

/**
 * A latency ceiling no machine misses: above k6's 10 s request timeout (LOAD_TIMEOUT_MS), so only a request
 * that failed anyway could cross it. The smoke gate's default p99<2000 broke on a 2-core machine both of whose
 * cores other work kept busy (issue 33): these tests prove the reply and HTTP gates and the report, not this
 * machine's speed. The latency gate's own test sets an impossible p99 (0.001 ms) instead.
 */
const NO_LATENCY_GATE = ['--p99', '60000'];

const report = (run: Run) => JSON.parse(run.files['load-k6.json']!) as K6LoadReport;
const unescape = (s: string) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!);
const testcases = (xml: string) => [...xml.matchAll(/<testcase [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)].map((m) => ({ name: unescape(m[1]!), failed: m[2]!.includes('<failure') }));

/** No key, neither the one given nor one the CLI bootstrapped (`<prefix>_live_<secret>`), in any output. */
function expectNoKey(run: Run, key?: string): void {
  for (const [name, text] of Object.entries({ stdout: run.stdout, stderr: run.stderr, ...run.files })) {
    if (key) expect(text.includes(key), `${name} holds the API key`).toBe(false);
    expect(text, name).not.toMatch(/_live_[A-Za-z0-9]{8,}/);
  }
}

beforeAll(async () => {
  execFileSync('bash', ['scripts/install-k6.sh'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  server = await startReference(UNTHROTTLED);
  apiKey = (await bootstrap(server)).apiKey;
}, 600_000);

afterAll(async () => {
  await server?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm run load:k6', () => {
  it('runs the smoke scenario against the embedded reference: exit 0, every threshold a passing testcase', async () => {
    const run = await loadK6(['--scenario', 'smoke', ...NO_LATENCY_GATE]);
    expect(run.code, run.stderr).toBe(0);
    // The target is announced before k6 starts.
    expect(run.stderr).toMatch(/target: embedded reference server[^\n]*\n[\s\S]*load:k6: tools-list, schedule-preview/);
    // Issue 36: which k6 runs, said first; k6's own output kept apart (stderr, prefixed, and a log file); the verdict first on stdout.
    expect(run.stderr).toMatch(/^load:k6: k6 v1\.\d+\.\d+[^\n]* at \/\S+\/k6 \((on PATH|pinned, built earlier|built from source in \d+ s)\)$/m);
    expect(run.stdout.split('\n')[0]).toMatch(/^PASS: all \d+ k6 thresholds hold$/);
    expect(run.stdout).toMatch(/^ {2}tools-list: offered 10\/s, achieved [\d.]+\/s \(\d+ requests[^)]*\); p50 /m);
    expect(run.stdout).not.toMatch(/all thresholds passed|k6 \|/);
    expect(run.stderr).toMatch(/^k6 \| .*all thresholds passed/m);
    expect(readFileSync(join(run.dir, 'k6-output.log'), 'utf8')).toMatch(/all thresholds passed/);
    const r = report(run);
    expect(r.engine).toBe('k6');
    expect(r.target.kind).toBe('embedded');
    expect(r.scenarios.map((s) => s.name)).toEqual(['tools-list', 'schedule-preview']);
    for (const s of r.scenarios) {
      expect(s.requests, s.name).toBeGreaterThan(0);
      expect([s.errors, s.errorsByKind], s.name).toEqual([0, {}]);
      expect(s.latencyMs.p99, s.name).toBeGreaterThan(0);
    }
    const streaming = r.scenarios[1]!.streaming!;
    expect(streaming.responses).toBe(r.scenarios[1]!.requests);
    expect(streaming.progressEvents.min).toBeGreaterThanOrEqual(1);
    expect(streaming.timeToFirstEventMs.p50).toBeGreaterThan(0);
    // The reference flushes its SSE headers first: first byte comes well before the end of the stream.
    expect(streaming.timeToResultMs.p50).toBeGreaterThan(streaming.timeToFirstEventMs.p50);
    const cases = testcases(run.files['k6-junit.xml']!);
    expect(cases.map((c) => c.name).sort()).toEqual(r.thresholds.map((t) => t.expression).sort());
    expect(cases.map((c) => c.name)).toEqual(expect.arrayContaining(['reply_ok: rate==1', 'http_req_failed: rate==0', 'http_req_duration{scenario:tools-list}: p(99)<60000']));
    expect(cases.every((c) => !c.failed)).toBe(true);
    expect(JSON.parse(run.files['k6-summary.json']!)).toHaveProperty('metrics.reply_ok');
    expectNoKey(run);
  }, 90_000);

  it('fails the reply gate on a reference that drops progress: exit 1, a JUnit failure on reply_ok only', async () => {
    const run = await loadK6(['--scenario', 'smoke', '--mutant', 'progress-dropped', ...NO_LATENCY_GATE]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout.split('\n')[0]).toMatch(/^FAIL: 1 of \d+ k6 thresholds crossed: reply_ok: rate==1 \(actual 0\.\d+\)$/);
    const r = report(run);
    expect(r.scenarios[0]!.errors).toBe(0);
    expect(Object.keys(r.scenarios[1]!.errorsByKind)).toEqual(['stream-few-progress']);
    expect(r.scenarios[1]!.errors).toBe(r.scenarios[1]!.requests);
    expect(testcases(run.files['k6-junit.xml']!).filter((c) => c.failed).map((c) => c.name)).toEqual(['reply_ok: rate==1']);
    expectNoKey(run);
  }, 90_000);

  it('fails the latency gate on an impossible p99 (url target, a given key that appears nowhere)', async () => {
    const run = await loadK6(['--target', 'url', '--base-url', server.baseUrl, '--api-key', apiKey, '--scenario', 'tools-list', '--rate', '20', '--duration', '1', '--p99', '0.001']);
    expect(run.code, run.stderr).toBe(1);
    const r = report(run);
    expect(r.scenarios[0]!.errors).toBe(0);
    expect(testcases(run.files['k6-junit.xml']!).filter((c) => c.failed).map((c) => c.name)).toEqual(['http_req_duration{scenario:tools-list}: p(99)<0.001']);
    expectNoKey(run, apiKey);
  }, 90_000);

  it('fails the HTTP gate when every request is refused (a wrong key): 401s counted as http-4xx', async () => {
    const wrongKey = `cnv_live_${'x'.repeat(32)}`;
    const run = await loadK6(['--target', 'url', '--base-url', server.baseUrl, '--api-key', wrongKey, '--scenario', 'tools-list', '--rate', '20', '--duration', '1', ...NO_LATENCY_GATE]);
    expect(run.code, run.stderr).toBe(1);
    const r = report(run);
    expect(r.scenarios[0]!.errorsByKind).toEqual({ 'http-4xx': r.scenarios[0]!.requests });
    const failed = testcases(run.files['k6-junit.xml']!).filter((c) => c.failed).map((c) => c.name);
    expect(failed.sort()).toEqual(['http_req_failed: rate<0.01', 'reply_ok: rate>0.99']);
    expectNoKey(run, wrongKey);
  }, 90_000);

  // The table is judged in this process (commandLineOutcome: the command's option reader, then main()'s
  // describeFailure); the command itself runs for the two cases after it.
  it.each([
    [['--scenario', 'nope'], /--scenario: unknown scenario "nope"/],
    [['--rate', 'fast'], /--rate must be a positive number/],
    [['--rate', '0'], /--rate must be a positive number/],
    [['--rate', ''], /--rate must be a positive number \(got ""\)/],
    [['--vus', '1.5'], /--vus must be a whole number from 1 to 1000/],
    [['--scenario', ' , '], /--scenario needs at least one scenario name/],
    [['--duration', '301'], /--duration must be from 1 to 300/],
    [['--rate', '10000', '--duration', '300'], /requests \(--rate x --duration x scenarios\) must be from 1 to 2000000/],
    [['--vus', '9', '--max-vus', '3'], /--max-vus \(3\) must be at least --vus \(9\)/],
    [['--target', 'url'], /--target url needs --base-url/],
    [['--target', 'url', '--base-url', 'http://127.0.0.1:1', '--mutant', 'progress-dropped'], /--mutant works with the embedded target only/],
    [['--mutant', 'progress-droped'], /unknown mutant "progress-droped"; the nearest of the \d+ known: progress-dropped, /],
  ])('bad usage %j exits 2 with one error line and the usage', (args, message) => {
    const run = commandLineOutcome((onSecrets) => readLoadK6Options(args, onSecrets), LOAD_K6_USAGE);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.match(/^error: /gm), run.stderr).toHaveLength(1);
    expect(run.stderr).toMatch(/^error: [^\n]*\n\nUsage: npm run load:k6/);
  });

  it('the command itself exits 2 on bad usage and on an unsafe target, before any traffic', async () => {
    const cases: [string[], RegExp][] = [
      [['--bogus'], /Unknown option '--bogus'/],
      [['--target', 'url', '--base-url', 'http://192.0.2.1:9', '--api-key', 'k'], /not a loopback address/],
    ];
    const runs = await Promise.all(cases.map(([args]) => loadK6(args)));
    runs.forEach((run, i) => {
      expect(run.code, cases[i]![0].join(' ')).toBe(2);
      expect(run.stderr, cases[i]![0].join(' ')).toMatch(cases[i]![1]);
      expect(run.stderr).not.toMatch(/k6 load:|load:k6: .* at /);
      // One error line, never a stack trace.
      expect(run.stderr.match(/^error: /gm), run.stderr).toHaveLength(1);
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(Object.keys(run.files)).toEqual([]);
    });
  }, 90_000);
});

describe('which k6 runs', () => {
  /** A fake `k6` on PATH that says it is `version`. */
  function fakeK6(version: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'fake-k6-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'k6'), `#!/bin/sh\necho "k6 ${version} (fake)"\n`, { mode: 0o755 });
    return dir;
  }
  const chosen = (path: string) => execFileSync('bash', [join(ROOT, 'scripts/install-k6.sh')], { env: { ...process.env, PATH: `${path}:${process.env.PATH}` }, encoding: 'utf8' }).trim().split('\n').at(-1);

  it('a k6 on PATH of the supported major version is used before the pinned one is built or run', () => {
    const dir = fakeK6('v1.9.0');
    expect(chosen(dir)).toBe(join(dir, 'k6'));
  });

  it('a k6 on PATH of another major version is passed over for the pinned one', () => {
    expect(chosen(fakeK6('v0.49.0'))).toBe(join(ROOT, '.tools/bin/k6'));
  });
});

describe('a signal to `npm run load:k6`', () => {
  it('SIGTERM while k6 runs: k6 stops, the command exits 143, no process left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'load-k6-signal-'));
    dirs.push(dir);
    const env = { ...process.env };
    delete env.MCP_API_KEY;
    const npm = spawn('npm', ['run', '-s', 'load:k6', '--', '--scenario', 'tools-list', '--rate', '20', '--duration', '30', '--report-dir', dir], { cwd: ROOT, env, stdio: 'ignore' });
    // This run's k6 only (its SUMMARY_DIR is this test's directory): other k6 runs may share the machine.
    const below = () => {
      try {
        return execFileSync('pgrep', ['-f', `k6 run --address`], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number)
          .filter((pid) => {
            try {
              return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`SUMMARY_DIR=${dir}`);
            } catch {
              return false;
            }
          });
      } catch {
        return [];
      }
    };
    // A bound on hangs: npm, the embedded reference and k6 start in a few seconds alone, far slower on a busy machine.
    let k6: number[] = [];
    for (const until = Date.now() + 60_000; Date.now() < until && k6.length === 0;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      k6 = below();
    }
    expect(k6.length, 'k6 started').toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (c) => resolve(c)));
    npm.kill('SIGTERM');
    expect(await exited).toBe(143);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(k6.filter((pid) => existsSync(`/proc/${pid}`) && !/\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')))).toEqual([]);
  }, 120_000);
});
