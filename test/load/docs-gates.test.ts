import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Middleware } from '../../service/reference-server/app.js';
import { startServer } from '../../fixtures/variants/variant.js';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { UNTHROTTLED } from '../../load/target.js';
import { startReference, type ReferenceServer } from '../helpers/reference.js';
import { expectValidLoad } from './load-schema.js';
import { readReport, runLoad } from './load-run.js';

// The load gate a team copies from docs/github-actions-load.yml, its own command line with shorter rounds
// (the same number of pairs: the interval's width depends on it), against two servers started here. It
// must pass when both are the same code and fail when the candidate is 30 % slower, on a quiet machine and
// beside busy processes (npm run test:busy): no retry, the gate itself tells noise from a regression.

interface Workflow { jobs: Record<string, { steps: { name?: string; run?: string }[] }> }
const workflow = parse(readFileSync(join(PACKAGE_ROOT, 'docs/github-actions-load.yml'), 'utf8')) as Workflow;
const steps = Object.values(workflow.jobs)[0]!.steps;

/** The `npm run load -- ...` arguments of a step, its continuation lines joined, quotes removed. */
function loadArgs(stepName: string): string[] {
  const run = steps.find((s) => s.name === stepName)!.run!.replace(/\\\n\s*/g, ' ');
  const line = /npm run load -- (.*?)(?:\|\||$)/m.exec(run)![1]!;
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/**
 * The planted slowdown: every response ends 43 % of its own time later (from the request to its end, held
 * on a timer, no CPU spent), so each latency is 1.43 times as long and a closed loop completes 1 / 1.43 =
 * 70 % as many requests: 30 % slower, by a factor that does not depend on how fast the machine is.
 */
const SLOWER = 0.43;
const slower: Middleware = (_service, next) => async (req, res) => {
  const started = performance.now();
  const end = res.end.bind(res) as (...args: unknown[]) => void;
  res.end = ((...args: unknown[]) => {
    setTimeout(() => end(...args), (performance.now() - started) * SLOWER);
    return res;
  }) as typeof res.end;
  await next(req, res);
};

describe('the example load workflow\'s gate, base and pull request in pairs of rounds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-gates-'));
  let base: ReferenceServer;
  let same: ReferenceServer;
  let slow: ReferenceServer;
  beforeAll(async () => {
    base = await startReference(UNTHROTTLED);
    same = await startReference(UNTHROTTLED);
    // The test reference's own settings (fast streaming, unthrottled), plus the delay.
    slow = await startServer({ streaming: { steps: 3, stepDelayMs: 20 }, ...UNTHROTTLED }, slower);
  });
  afterAll(async () => {
    await Promise.all([base?.close(), same?.close(), slow?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  // The workflow's command with 2 s rounds, less its latency ceilings (tools-list:p99<250...): a ceiling in
  // milliseconds is the runner's to meet, and a machine starved by busy processes may not (a same-code run
  // here once had p99 306 ms). What is tested is what the gate compares: the regression, and errors==0.
  const args = (candidate: ReferenceServer, reportDir: string) => {
    const line = loadArgs('Load the pull request and the base, in pairs of rounds');
    const ceiling = (a: string | undefined) => a !== undefined && /^([a-z-]+:)?p\d+</.test(a);
    return line
      .filter((a, i) => !ceiling(a) && !(a === '--threshold' && ceiling(line[i + 1])))
      .map((a, i, kept) => (kept[i - 1] === '--duration' ? '2'
        : a === '$BASE_URL' ? base.baseUrl
          : a === '$PR_URL' ? candidate.baseUrl
            : a.startsWith('reports/') ? join(dir, reportDir) : a));
  };

  it('is one command loading both servers, with the regression gate', () => {
    const line = loadArgs('Load the pull request and the base, in pairs of rounds');
    expect(line).toEqual(expect.arrayContaining(['--base-url', '$PR_URL', '--baseline-url', '$BASE_URL', '--pairing', 'together', '--rounds', 'errors==0', 'regression<=20%']));
    expect(line).not.toContain('--baseline');
    const shortened = args(same, 'x');
    expect(shortened.filter((a) => a.includes('p99<'))).toEqual([]);
    expect(shortened).toEqual(expect.arrayContaining(['--duration', '2', '--threshold', 'errors==0', 'regression<=20%']));
  });

  // Hang bounds only: 2 scenarios × (1 warm-up s + 6 pairs × 2 s), and a busy machine's slow start-ups.
  it('passes when the pull request is the same code as the base', { timeout: 240_000 }, async () => {
    const run = await runLoad([...args(same, 'same'), '--quiet'], { timeoutMs: 220_000 });
    console.log(`same code:\n${run.stdout.split('\n').filter((l) => /vs baseline|PASS|FAIL/.test(l)).join('\n')}`);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^PASS: all \d+ thresholds hold$/m);
    const report = readReport(join(dir, 'same'));
    expectValidLoad(report);
    expect(report.baseline!.baseUrl).toBe(base.baseUrl);
    for (const c of report.baseline!.scenarios) {
      const r = c.paired!.regression!;
      // The interval is judged, not the estimate: the low end stays under the tolerance.
      expect(r.lowPct).toBeLessThanOrEqual(20);
      expect(r.lowPct).toBeLessThanOrEqual(r.estimatePct);
      expect(r.estimatePct).toBeLessThanOrEqual(r.highPct);
    }
  });

  it('fails when the pull request is 30 % slower', { timeout: 240_000 }, async () => {
    const run = await runLoad([...args(slow, 'slow'), '--quiet'], { timeoutMs: 220_000 });
    console.log(`30 % slower:\n${run.stdout.split('\n').filter((l) => /vs baseline|PASS|FAIL/.test(l)).join('\n')}`);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const report = readReport(join(dir, 'slow'));
    expectValidLoad(report);
    const regression = report.thresholds.filter((t) => t.metric === 'regression');
    // The slowdown is not wrong replies: only the regression gate fails, on the interval's low end.
    expect(report.thresholds.filter((t) => !t.ok).every((t) => t.metric === 'regression')).toBe(true);
    expect(regression.some((t) => !t.ok && t.actual! > 20)).toBe(true);
    expect(regression.find((t) => !t.ok)!.note).toMatch(/95 % interval .* judged on the interval's low end/);
  });
});
