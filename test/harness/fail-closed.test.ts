import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROKEN_SERVICES } from '../../service/mutants/fail-closed.js';
import type { Middleware } from '../../service/reference-server/app.js';
import { startServer, VARIANT_CONFIG } from '../../fixtures/variants/variant.js';
import { ConformanceRuns } from '../../scripts/conformance-runs.js';
import { REPORT_FILES } from '../../src/reports/index.js';
import { expectValid } from '../helpers/results-schema.js';

/**
 * "No run may end without a verdict or its reports" (issue 24). Each broken service is run as a user runs the
 * harness against a deployment (url target, default profile, no keys given): the run ends in a verdict
 * (exit 1) with every report written, within the bound, names the fault, and no check breaks inside the
 * harness. A target that goes away mid-run ends without a verdict (exit 2), says so once, and counts none of
 * the rows it left unjudged as the service's failures.
 */
// Each run in a process of its own: the broken services live in this one, and must not share its event loop with the runs.
const pool = new ConformanceRuns(2, { ownProcess: true });

/** What every run must leave behind, whatever its verdict. */
function expectReports(reportDir: string): void {
  for (const file of REPORT_FILES) expect(existsSync(join(reportDir, file)), `${file} written`).toBe(true);
}

describe.concurrent('a broken or gated service gets a verdict and its reports', () => {
  it.each(BROKEN_SERVICES.map((b) => [b.name, b] as const))('%s', async (_name, broken) => {
    const server = await startServer(VARIANT_CONFIG, broken.middleware);
    try {
      // A bound on a hang (issue 24's 60 s, on a quiet machine; here generous for a slow or busy one, issue 33):
      // a run that never ends is killed by the pool and fails the test without a results.json.
      const run = await pool.run(['--target', 'url', '--base-url', server.baseUrl, '--seed', '7'], 240_000);
      expect(run.results, `${broken.name}: ${run.stderr}`).toBeDefined();
      if (broken.notMcp) {
        // No MCP server answers so: no verdict, one line why, and the folder says so; no bootstrap was spent.
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toMatch(broken.notMcp);
        expect(run.results!.verdict).toMatch(/^no verdict: /);
        expect(server.outbox.length, 'claim mails: no bootstrap went out').toBe(0);
        return;
      }
      const results = run.results!;
      expectValid(results);
      expectReports(run.reportDir);
      const broke = results.requirements.flatMap((r) => r.checks.filter((c) => c.status === 'error').map((c) => `${r.id} / ${c.name}: ${c.message}`));
      expect(broke, `${broken.name}: checks broke inside the harness`).toEqual([]);
      expect(run.code, `${broken.name}: ${results.verdict}`).toBe(1);
      const status = (id: string) => results.requirements.find((r) => r.id === id)?.status;
      for (const id of broken.fails) expect(status(id), `${broken.name}: ${id}`).toBe('fail');
    } finally {
      await server.close();
    }
  }, 300_000);
});

describe('a target that stops answering mid-run', () => {
  it('is said once, with the time and the last request that reached it; its unjudged rows are not failures (exit 2)', async () => {
    // Gone after it served this many requests: far enough into the run that checks are in flight.
    let served = 0;
    let stop: (() => void) | undefined;
    const goneAfter: Middleware = (_service, next) => (req, res) => {
      served += 1;
      if (served === 150) setImmediate(() => stop?.());
      return next(req, res);
    };
    const server = await startServer(VARIANT_CONFIG, goneAfter);
    let closed: Promise<void> | undefined;
    stop = () => {
      closed ??= server.close();
    };
    try {
      const run = await pool.run(['--target', 'url', '--base-url', server.baseUrl, '--seed', '7'], 240_000);
      expect(run.results, run.stderr).toBeDefined();
      const results = run.results!;
      expectValid(results);
      expectReports(run.reportDir);
      expect(run.code).toBe(2);
      expect(results.targetLost, results.verdict).toBeDefined();
      const loss = results.targetLost!;
      expect(results.verdict).toMatch(/^no verdict: the target stopped answering at \S+ \([\d.]+ s into the run; the last request that reached it: (POST|GET) \//);
      expect(loss.unjudged.length).toBeGreaterThan(0);
      expect(loss.lastReached).toMatch(/HTTP \d{3}\)$/);
      // No row fails for the loss itself: a connection refused or cut is never the service's failure here.
      const blamed = results.requirements.flatMap((r) => r.checks.filter((c) => c.status === 'fail' && /ECONNREFUSED|other side closed|socket hang up|fetch failed/.test(`${c.message} ${JSON.stringify(c.actual)}`)).map((c) => `${r.id} / ${c.name}: ${c.message}`));
      expect(blamed).toEqual([]);
      for (const id of loss.unjudged) expect(results.requirements.find((r) => r.id === id)?.status).toBe('not-testable');
    } finally {
      stop();
      await closed;
    }
  }, 300_000);
});
