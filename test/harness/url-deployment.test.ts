import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../service/reference-server/app.js';
import { DEFAULT_BOOTSTRAP_BUDGET } from '../../src/engine/run.js';
import { runCli } from './run-cli.js';

/**
 * The reference as a user meets it (`npm run reference`: its default config, bootstrap 0.5/s with a burst of
 * 30, trial-plan rate limits), checked twice back to back as a deployment: both runs conform, each within
 * the default bootstrap budget, and neither fails on the other's use of the rate limits.
 */
let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({});
});
afterAll(() => server.close());

it('a url target run twice back to back against the default config: both conform within the bootstrap budget', async () => {
  for (const attempt of [1, 2]) {
    const run = await runCli(['--base-url', server.baseUrl, '--seed', '7'], 240_000);
    const r = run.results;
    expect(r, run.stderr).toBeDefined();
    const bad = r!.requirements.filter((x) => x.status === 'fail' || x.status === 'warn')
      .map((x) => `${x.id}: ${x.checks.filter((c) => c.status === 'fail').map((c) => `${c.name}: ${c.message}`).join(' | ')}`);
    expect(bad, `run ${attempt}`).toEqual([]);
    expect(run.code, `run ${attempt}`).toBe(0);
    expect(r!.profile).toBe('service');
    expect(r!.consumption!.bootstrapBudget).toBe(DEFAULT_BOOTSTRAP_BUDGET);
    expect(r!.consumption!.bootstraps).toBeLessThanOrEqual(DEFAULT_BOOTSTRAP_BUDGET);
    expect(r!.consumption!.workspaces).toBeLessThanOrEqual(r!.consumption!.bootstraps);
  }
}, 600_000);

it('a gated bootstrap and no keys given: a verdict, not exit 2; the bootstrap rows fail, key rows are not testable with the reason', async () => {
  const { variant } = await import('../../fixtures/variants/index.js');
  const gated = await variant('gated-bootstrap').start();
  try {
    const run = await runCli(['--base-url', gated.baseUrl, '--seed', '7', '--only', 'bootstrap-returns-key,auth-workspace-scoped-read,calls-non-streaming-json,tools-list-'], 120_000);
    expect(run.code, run.stderr).toBe(1);
    const status = (id: string) => run.results!.requirements.find((r) => r.id === id);
    expect(status('bootstrap-returns-key')?.status).toBe('fail');
    const keyRows = run.results!.requirements.filter((r) => !r.id.startsWith('bootstrap-'));
    expect(keyRows.length).toBeGreaterThan(0);
    for (const r of keyRows) {
      expect(r.status, r.id).toBe('not-testable');
      // Each row says why: the refused bootstrap (other checks of a row may give reasons of their own).
      expect(r.checks.map((c) => c.reason).join(' | '), r.id).toMatch(/no (API key|key of a second workspace): bootstrap at .* answered 401/);
    }
  } finally {
    await gated.close();
  }
}, 180_000);
