import { describe, expect, it } from 'vitest';
import { MUTANTS } from '../../fixtures/mutants/index.js';
import { CATALOG } from '../../src/catalog/index.js';
import { runCli } from './run-cli.js';

/**
 * The harness must be able to fail: each mutant violates one requirement, and a run restricted to
 * that requirement must fail on it (fail for a MUST, warn for a SHOULD).
 */
describe.concurrent('every mutant is caught', () => {
  it('there are mutants, each naming known requirements', () => {
    expect(MUTANTS.length).toBeGreaterThan(0);
    const ids = new Set(CATALOG.map((r) => r.id));
    for (const m of MUTANTS) for (const id of m.violates) expect(ids.has(id), `${m.name} violates unknown id ${id}`).toBe(true);
    expect(new Set(MUTANTS.map((m) => m.name)).size).toBe(MUTANTS.length);
  });

  it.each(MUTANTS.map((m) => [m.name, m] as const))('%s', async (_name, m) => {
    const run = await runCli(['--mutant', m.name, '--only', m.violates.join(','), '--seed', '1']);
    expect(run.results, run.stderr).toBeDefined();
    const caught = run.results!.requirements.filter((r) => m.violates.includes(r.id) && (r.status === 'fail' || r.status === 'warn'));
    expect(caught.map((r) => r.id), `${m.name} (${m.description}) was not caught`).not.toEqual([]);
    const level = (id: string) => CATALOG.find((r) => r.id === id)!.level;
    if (caught.some((r) => level(r.id) === 'MUST')) expect(run.code).toBe(1);
    if (m.caughtBy === 'property') {
      // Only a property (or the model) may catch it: the scenarios of the same ids pass on it.
      const checks = run.results!.requirements.filter((r) => m.violates.includes(r.id)).flatMap((r) => r.checks);
      expect(checks.filter((c) => c.status === 'fail').map((c) => c.name).filter((n, i, all) => all.indexOf(n) === i), 'failing checks').toEqual(
        checks.filter((c) => c.status === 'fail' && c.property).map((c) => c.name).filter((n, i, all) => all.indexOf(n) === i));
      const failed = checks.find((c) => c.status === 'fail' && c.property)!;
      expect(failed.property!.path, 'a failed property records the path that replays it').toMatch(/^\d+(:\d+)*$/);
      expect(failed.replay).toContain(`--replay ${failed.property!.id}:${failed.property!.path}`);
    }
  }, 120_000);
});
