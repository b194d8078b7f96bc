import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VARIANTS } from '../../fixtures/variants/index.js';
import { CATALOG } from '../../src/catalog/index.js';
import { defaultProfile } from '../../src/engine/run.js';
import { ConformanceRuns } from '../../scripts/conformance-runs.js';
import { failingRows, describeRows } from '../helpers/variant-verdict.js';
import { outputLeaks, reportFiles } from '../helpers/key-leaks.js';

/**
 * The mirror of the mutation test: each faithful variant differs from the reference only where the
 * description allows, and the harness, pointed at it as a user points it at a deployment (url target,
 * the default url profile, auto revision detection, the keys the variant hands out), must say it conforms,
 * or fail exactly on the variant's documented deviations. The variants run side by side, each run in a
 * process of the pool (a run waits out its variant's rate limits far more than it computes).
 */
const reports = mkdtempSync(join(tmpdir(), 'variants-'));
let keepReports = false;
// Each run in a process of its own: the variant servers live in this one, and must not share its event loop with the runs.
const pool = new ConformanceRuns(3, { ownProcess: true });

afterAll(async () => {
  // Reports of a failed run stay for a look at their results.json (the path is in the failure message).
  if (!keepReports) rmSync(reports, { recursive: true, force: true });
});

describe.concurrent('faithful variants', () => {
  it('each is named once, says which sentence allows it, and documents only known requirement ids', () => {
    expect(new Set(VARIANTS.map((v) => v.name)).size).toBe(VARIANTS.length);
    const ids = new Set(CATALOG.map((r) => r.id));
    for (const v of VARIANTS) {
      expect(v.allowedBy.length, `${v.name}: allowedBy`).toBeGreaterThan(20);
      for (const id of v.expected.failing) expect(ids.has(id), `${v.name} documents unknown id ${id}`).toBe(true);
      expect(v.expected.exitCode, `${v.name}: a documented MUST deviation fails the run`).toBe(v.expected.failing.length > 0 ? 1 : 0);
    }
  });

  it.each(VARIANTS.map((v) => [v.name, v] as const))('%s: the harness gives the documented verdict', async (name, v) => {
    const server = await v.start();
    const reportDir = join(reports, name);
    try {
      // What a user pointing the harness at a deployment gets without --profile: the url target's defaults.
      const keys = server.keys ? ['--api-key', server.keys.apiKey, '--other-key', server.keys.otherKey, '--revoked-key', server.keys.revokedKey] : [];
      const run = await pool.run(['--target', 'url', '--base-url', server.baseUrl, ...keys, '--seed', '20260728', '--timeout', '10000'], 300_000, reportDir);
      expect(run.results, run.stderr).toBeDefined();
      const results = run.results!;
      expect(results.profile).toBe(defaultProfile('url', { baseUrl: server.baseUrl }));
      const failing = failingRows(results);
      const message = `${name} (${v.description}); reports in ${reportDir}\n${describeRows(failing)}`;
      if (failing.map((r) => r.id).sort().join() !== [...v.expected.failing].sort().join() || results.exitCode !== v.expected.exitCode) keepReports = true;
      expect(failing.map((r) => r.id).sort(), message).toEqual([...v.expected.failing].sort());
      expect(results.exitCode, message).toBe(v.expected.exitCode);
      expect(run.code, message).toBe(v.expected.exitCode);
      // A variant that keeps the keys it handed out (key-parts): no report holds any spelling of any of them.
      if (server.handedOut) {
        const keys = server.handedOut();
        expect(keys.length, `${name}: keys handed out`).toBeGreaterThan(2);
        expect(outputLeaks(reportFiles(reportDir), run.stderr, keys), `${name}: keys in the reports in ${reportDir}`).toEqual([]);
      }
    } catch (err) {
      keepReports = true;
      throw err;
    } finally {
      await server.close();
    }
  }, 300_000);
});
