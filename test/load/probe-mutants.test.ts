import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { rateLimitMutants } from '../../service/mutants/rate-limit.js';
import { VERDICTS } from '../../load/probe/analysis.js';
import type { ProbeResult } from '../../load/probe/probe.js';
import { program } from '../../src/kit/package-root.js';

// Every verdict of the probe must be able to fail: each broken variant of the reference's rate limiting
// (service/mutants/rate-limit.ts) makes the probe exit 1 with the verdict it violates failing (and, where the
// other verdicts are stable at these short runs, no other).

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'probe-mutants-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function probe(args: string[], reportDir: string): Promise<{ code: number; stdout: string; stderr: string; result: ProbeResult; files: string[] }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [program('src/cli/probe-rate-limit.ts'), ...args, '--report-dir', reportDir], { cwd: ROOT, timeout: 90_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      try {
        const files = readdirSync(reportDir).map((f) => readFileSync(join(reportDir, f), 'utf8'));
        resolve({ code, stdout, stderr, result: JSON.parse(readFileSync(join(reportDir, 'probe.json'), 'utf8')) as ProbeResult, files });
      } catch (e) {
        reject(new Error(`probe exited ${code} without reports: ${(e as Error).message}\n${stderr}`));
      }
    });
  });
}

/**
 * A plan of 10 req/s, burst 5: low enough that any machine offers the steps around it (4, 8, 16, then 12 req/s)
 * on time. At the default plan's 50 req/s a busy 2-core machine could not step up to the limit within the budget,
 * or sent its requests late (issue 33): the verdicts under test do not depend on the rate's size.
 */
const PLAN = join(dir, 'plan.json');
writeFileSync(PLAN, JSON.stringify({ plans: { probe: { ratePerSecond: 10, burst: 5, maxBlocks: 10 } }, bootstrapPlan: 'probe' }));
/** Short runs: steps from 4 req/s, one bisection. */
const SHORT = ['--reference-config', PLAN, '--max-time', '15', '--step-time', '1', '--start-rate', '4', '--refine-steps', '1'];
/** What each mutant needs besides: the never-throttling one is asked for a rate, up to a low maximum. */
const EXTRA: Record<string, string[]> = {
  'rate-limit-never': ['--expect-rate', '10', '--max-rate', '40', '--max-burst', '100'],
  'rate-limit-retry-after-understated': ['--refine-steps', '0'],
  // The gates fail on a wrong expectation too: this plan's burst is 5, its rate 10 (which passes).
  'rate-limit-no-retry-after': ['--expect-burst', '10', '--expect-rate', '10'],
};

describe('the rate-limit probe catches broken rate limiting', () => {
  it('has a mutant for every verdict that only a broken service fails', () => {
    const covered = new Set(rateLimitMutants.flatMap((m) => m.violates));
    // expect-burst fails on a wrong expectation (below); every other verdict has a broken service to catch.
    for (const id of Object.keys(VERDICTS).filter((v) => v !== 'expect-burst')) expect(covered.has(id), id).toBe(true);
    for (const id of covered) expect(Object.keys(VERDICTS)).toContain(id);
  });

  // A probe that finds no limit has measured nothing to pass: without --expect-rate it is inconclusive, not PASS.
  it('rate-limit-never without --expect-rate: INCONCLUSIVE with the reason, exit 0, never PASS', async () => {
    const run = await probe([...SHORT, '--max-rate', '40', '--max-burst', '100', '--mutant', 'rate-limit-never'], join(dir, 'never-unasked'));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^INCONCLUSIVE: no limit found up to 40 req\/s \(--expect-rate makes this a failure\); \d+ requests in /m);
    expect(run.stdout).not.toMatch(/^PASS/m);
    const md = run.files.find((f) => f.startsWith('# Rate-limit probe'))!;
    expect(md).toMatch(/^# Rate-limit probe: INCONCLUSIVE/);
  }, 90_000);

  for (const m of rateLimitMutants) {
    it(`${m.name}: ${m.description}`, async () => {
      const run = await probe([...SHORT, ...(EXTRA[m.name] ?? []), '--mutant', m.name], join(dir, m.name));
      const failing = run.result.verdicts.filter((v) => v.status === 'fail').map((v) => v.id);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(m.violates.some((id) => failing.includes(id)), `failing: ${failing.join(', ')}\n${run.stdout}`).toBe(true);
      expect(run.result.exitCode).toBe(1);
      // The JUnit report says which: one <failure> per failing verdict.
      const junit = run.files.find((f) => f.startsWith('<?xml'))!;
      expect(junit.match(/<failure /g)).toHaveLength(failing.length);
      for (const text of [run.stdout, run.stderr, ...run.files]) expect(text).not.toMatch(/_live_[A-Za-z0-9]{8,}|REDACTED/);
      if (m.name === 'rate-limit-never') {
        expect(run.result.sustained).toMatchObject({ ratePerSecond: null, stop: 'no-limit', noLimitUpTo: 40 });
        expect(run.stdout).toMatch(/no limit found up to 40 req\/s/);
      }
      if (m.name === 'rate-limit-retry-after-understated') expect(run.stdout).toMatch(/retry after Retry-After was refused/);
      if (m.name === 'rate-limit-per-workspace') expect(failing).toEqual(['isolation-sibling']);
      if (m.name === 'rate-limit-no-retry-after') {
        expect(failing).toEqual(['retry-after-present', 'expect-burst']);
        expect(run.result.verdicts.find((v) => v.id === 'expect-rate')!.status).toBe('pass');
      }
    }, 90_000);
  }
});
