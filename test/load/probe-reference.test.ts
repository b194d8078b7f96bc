import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../service/reference-server/app.js';
import { mintKey } from '../../service/reference-server/keys.js';
import type { ProbeResult } from '../../load/probe/probe.js';
import { program } from '../../src/kit/package-root.js';
import { PROBE_USAGE, readProbeOptions } from '../../src/cli/probe-options.js';
import { commandLineOutcome } from '../helpers/command-line-outcome.js';

// `npm run probe:rate-limit` against the reference server configured with known limits: the probe must
// recover them within 10 %, find Retry-After present and honest, and see keys isolated. Each run is
// bounded (--max-time) to keep the suite short on a shared 2-core machine.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'probe-reference-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run { code: number; stdout: string; stderr: string; result: ProbeResult; files: Record<string, string> }

function probe(args: string[], reportDir: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [program('src/cli/probe-rate-limit.ts'), ...args, '--report-dir', reportDir], { cwd: ROOT, timeout: 90_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      try {
        const files = Object.fromEntries(readdirSync(reportDir).map((f) => [f, readFileSync(join(reportDir, f), 'utf8')]));
        resolve({ code, stdout, stderr, result: JSON.parse(files['probe.json']!) as ProbeResult, files });
      } catch (e) {
        reject(new Error(`probe exited ${code} without reports: ${(e as Error).message}\n${stderr}`));
      }
    });
  });
}

const within = (measured: number | null, configured: number, pct = 10) => measured !== null && Math.abs(measured - configured) <= (configured * pct) / 100;

/** No key-shaped string anywhere, not even a redacted one: the probe never puts a key in its output. */
function expectNoKeys(run: Run, keys: string[] = []): void {
  for (const [name, text] of Object.entries({ stdout: run.stdout, stderr: run.stderr, ...run.files })) {
    expect(text, name).not.toMatch(/_live_[A-Za-z0-9]{8,}/);
    expect(text, name).not.toContain('REDACTED');
    for (const key of keys) expect(text.includes(key), `${name} holds a key`).toBe(false);
  }
}

function verdicts(run: Run): Record<string, string> {
  return Object.fromEntries(run.result.verdicts.map((v) => [v.id, v.status]));
}

describe('rate-limit probe against the reference server with known limits', () => {
  for (const limits of [{ ratePerSecond: 20, burst: 40 }, { ratePerSecond: 50, burst: 10 }]) {
    it(`recovers ${limits.ratePerSecond} req/s and burst ${limits.burst} within 10 %, with honest Retry-After and isolated keys`, async () => {
      const config = join(dir, `config-${limits.ratePerSecond}.json`);
      writeFileSync(config, JSON.stringify({ plans: { known: { ...limits, maxBlocks: 10 } } }));
      const run = await probe(['--reference-config', config, '--plan', 'known', '--max-time', '20', '--step-time', '1', '--start-rate', '10',
        '--expect-rate', String(limits.ratePerSecond), '--expect-burst', String(limits.burst)], join(dir, `embedded-${limits.ratePerSecond}`));
      const r = run.result;
      // The target is announced first, before any traffic.
      expect(run.stderr.split('\n')[0]).toMatch(/^target: embedded reference server/);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(r.configured).toEqual(limits);
      expect(within(r.sustained.ratePerSecond, limits.ratePerSecond), `rate ${r.sustained.ratePerSecond}`).toBe(true);
      expect(within(r.burst.estimate, limits.burst), `burst ${r.burst.estimate}`).toBe(true);
      // The shape is read from when each success came: on a starved machine the sends bunch up and the answer may
      // be "unknown" (with why), never the wrong shape. test/load/probe-analysis.test.ts proves the models on exact times.
      expect(r.limiter.shape, r.limiter.why).not.toBe('fixed-window');
      if (r.limiter.shape === 'unknown') expect(r.limiter.why).toMatch(/neither model fits clearly|not far enough over the limit/);
      expect(verdicts(run)).toEqual({
        'retry-after-present': 'pass', 'retry-after-honest': 'pass', 'isolation-sibling': 'pass', 'isolation-other-workspace': 'pass', 'expect-rate': 'pass', 'expect-burst': 'pass',
      });
      expect(r.retryAfter.rpcCode).toBe(-31429);
      expect(r.retryAfter.on429.missing).toBe(0);
      // Whole-second Retry-After for a bucket that refills in a fraction of a second: an observation, not a fault.
      expect(r.retryAfter.overstates).toBe(true);
      expect(r.isolation.sibling.touched).toBe(false);
      expect(r.isolation.other.touched).toBe(false);
      // The reference sends the draft's fields; its quota is what a window admits: the burst, or the refill over a 1 s window when that is more.
      const w = Math.max(1, Math.ceil(limits.burst / limits.ratePerSecond));
      expect(r.headers.policy).toMatchObject({ ok: true, value: [{ name: 'known', quota: Math.max(limits.burst, limits.ratePerSecond * w), windowS: w }] });
      expect(r.headers.agreement[0]).toMatchObject({ what: expect.stringContaining('q (quota)'), agrees: true });
      expect(r.headers.agreement[1]).toMatchObject({ what: expect.stringContaining('q/w'), agrees: true });
      // Every step's numbers; the curve is in the HTML, one JUnit case per verdict.
      expect(r.steps.length).toBeGreaterThanOrEqual(3);
      for (const s of r.steps) expect(s.accepted2xx + s.throttled429 + s.other + s.notSent).toBeGreaterThan(0);
      expect(r.steps.some((s) => s.class === 'clean') && r.steps.some((s) => s.class === 'throttled')).toBe(true);
      expect(run.files['probe.html']).toContain('<svg');
      expect(run.files['probe.html']).toContain('Offered vs served rate');
      expect(run.files['probe-junit.xml']!.match(/<testcase /g)).toHaveLength(6);
      expect(run.files['probe-junit.xml']).not.toContain('<failure');
      expect(run.files['probe.md']).toContain('| expect-rate | pass |');
      // The budget bounds the traffic (20 s planned); on a busy machine the last rounds may run over, never past
      // the hard stop 15 s after it, which cuts off whatever is still in flight: a bound on hangs, not on speed.
      expect(r.durationS).toBeLessThan(20 + 15);
      expectNoKeys(run);
    }, 90_000);
  }

  it('probes a URL target with the keys it is given (no fresh keys), and never prints them', async () => {
    const server = await startReferenceServer({ plans: { given: { ratePerSecond: 30, burst: 15, maxBlocks: 10 } }, bootstrapPlan: 'given' });
    try {
      const mint = (workspaceId: string) => mintKey(server.store, server.config.keyPrefix, { workspaceId, label: 'probe test', temporary: false }).key;
      const w1 = server.store.createWorkspace({ name: 'probe main', plan: 'given' });
      const w2 = server.store.createWorkspace({ name: 'probe other', plan: 'given' });
      const keys = { main: mint(w1.id), sibling: mint(w1.id), other: mint(w2.id) };
      const run = await probe(['--base-url', server.baseUrl, '--max-time', '20', '--step-time', '1', '--start-rate', '10', '--expect-rate', '30', '--expect-burst', '15'],
        join(dir, 'url'), { MCP_API_KEY: keys.main, MCP_SIBLING_KEY: keys.sibling, MCP_OTHER_KEY: keys.other });
      const r = run.result;
      expect(run.stderr.split('\n')[0]).toBe(`target: ${server.baseUrl}`);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(r.target.kind).toBe('url');
      expect(within(r.sustained.ratePerSecond, 30), `rate ${r.sustained.ratePerSecond}`).toBe(true);
      expect(within(r.burst.estimate, 15), `burst ${r.burst.estimate}`).toBe(true);
      // No fresh keys: the burst is measured again after letting the key refill.
      expect(r.burst.samples.map((x) => [x.origin, x.used])).toEqual([['first', false], ['refilled', true]]);
      expect(verdicts(run)['isolation-sibling']).toBe('pass');
      expect(verdicts(run)['isolation-other-workspace']).toBe('pass');
      expect(verdicts(run)['retry-after-honest']).toBe('pass');
      expectNoKeys(run, Object.values(keys));
    } finally {
      await server.close();
    }
  }, 90_000);

  it('says isolation is not testable on a URL target without sibling and other keys', async () => {
    const server = await startReferenceServer({ plans: { given: { ratePerSecond: 50, burst: 10, maxBlocks: 10 } }, bootstrapPlan: 'given' });
    try {
      const w = server.store.createWorkspace({ name: 'probe main', plan: 'given' });
      const key = mintKey(server.store, server.config.keyPrefix, { workspaceId: w.id, label: 'probe test', temporary: false }).key;
      const run = await probe(['--base-url', server.baseUrl, '--max-time', '12', '--step-time', '0.5', '--start-rate', '40', '--refine-steps', '0'], join(dir, 'url-alone'), { MCP_API_KEY: key });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(verdicts(run)['isolation-sibling']).toBe('not-testable');
      expect(verdicts(run)['isolation-other-workspace']).toBe('not-testable');
      expect(run.result.verdicts.find((v) => v.id === 'isolation-sibling')!.message).toMatch(/--sibling-key/);
      expect(run.stdout).toMatch(/touched sibling: not testable/);
      expectNoKeys(run, [key]);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('probe command line', () => {
  // Judged in this process (commandLineOutcome: the option reader, then main()'s describeFailure);
  // probe-cli.test.ts starts the command itself for bad usage.
  it.each([
    [['--max-rate', '0']], [['--max-time', '1000']], [['--target', 'ftp']], [['--tolerance', 'x']], [['--plan', 'nope']], [['--target', 'url']],
    [['--base-url', 'http://127.0.0.1:1', '--plan', 'probe']], [['--api-key', 'cnv_live_x']], [['--start-rate', '100', '--max-rate', '50']], [['--mutant', 'no-such-mutant']],
  ])('refuses %j with exit 2 before any traffic', (args) => {
    const out = commandLineOutcome((onSecrets) => readProbeOptions(args, onSecrets), PROBE_USAGE);
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toMatch(/^error: [^\n]*\n\nUsage: npm run probe:rate-limit/);
  });

  it('refuses a non-loopback target without --allow-remote, and an unreachable one, with exit 2', async () => {
    for (const [args, message] of [[['--base-url', 'http://10.255.255.1:8080', '--api-key', 'k'], /not a loopback address/], [['--base-url', 'http://127.0.0.1:9', '--api-key', 'k'], /did not answer/]] as const) {
      const out = await new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile(process.execPath, [program('src/cli/probe-rate-limit.ts'), ...args, '--report-dir', join(dir, 'refused')], { cwd: ROOT, timeout: 30_000 }, (err, _stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stderr }));
      });
      expect(out.code, args.join(' ')).toBe(2);
      expect(out.stderr).toMatch(message);
    }
  }, 60_000);
});
