import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../fixtures/reference-server/app.js';
import { DEFAULT_BOOTSTRAP_BUDGET } from '../../src/run.js';
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
