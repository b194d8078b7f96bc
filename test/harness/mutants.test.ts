import { describe, expect, it } from 'vitest';
import { MUTANTS } from '../../service/mutants/index.js';
import { CATALOG } from '../../src/catalog/index.js';
import { ConformanceRuns } from '../../scripts/conformance-runs.js';

/**
 * The harness must be able to fail, for the right reason: each mutant declares the rows it violates and the
 * reason it plants (a regex over the failing check's name or message). A run restricted to those rows must
 * fail every declared row (warn for a SHOULD) with a check matching the planted reason; no other row of the
 * run may fail; and no check may break inside the harness (a TypeError is the run's error, never a verdict).
 * The runs go through a pool of three processes, each running command line after command line; the
 * slow ones start first (the interop matrix's clients wait out a call that never ends, properties search),
 * so that no slot is left with a long run at the end.
 */
const pool = new ConformanceRuns(3);
const slowness = (m: (typeof MUTANTS)[number]) => (m.violates.some((id) => id.startsWith('interop-')) ? 2 : m.caughtBy === 'property' ? 1 : 0);
const ordered = [...MUTANTS].sort((a, b) => slowness(b) - slowness(a));

describe.concurrent('every mutant is caught, on the rows it declares, for the reason it plants', () => {
  it('there are mutants, each naming known requirements and a planted reason', () => {
    expect(MUTANTS.length).toBeGreaterThan(0);
    const ids = new Set(CATALOG.map((r) => r.id));
    for (const m of MUTANTS) {
      expect(m.violates.length, `${m.name} declares no row`).toBeGreaterThan(0);
      for (const id of m.violates) expect(ids.has(id), `${m.name} violates unknown id ${id}`).toBe(true);
      expect(m.plants, `${m.name} plants no reason`).toBeInstanceOf(RegExp);
    }
    expect(new Set(MUTANTS.map((m) => m.name)).size).toBe(MUTANTS.length);
  });

  it.each(ordered.map((m) => [m.name, m] as const))('%s', async (_name, m) => {
    const run = await pool.run(['--mutant', m.name, '--only', m.violates.join(','), '--seed', '1']);
    expect(run.results, run.stderr).toBeDefined();
    const reqs = run.results!.requirements;
    const broken = reqs.flatMap((r) => r.checks.filter((c) => c.status === 'error').map((c) => `${r.id} / ${c.name}: ${c.message}`));
    expect(broken, `${m.name}: checks broke inside the harness`).toEqual([]);
    // A broken service gets a verdict: exit 2 is for the harness's own errors and a target that went away.
    expect(run.code, `${m.name}: ${run.results!.verdict}`).not.toBe(2);
    const level = (id: string) => CATALOG.find((r) => r.id === id)!.level;
    for (const id of m.violates) {
      const row = reqs.find((r) => r.id === id)!;
      const failing = row.checks.filter((c) => c.status === 'fail');
      const detail = `${m.name} (${m.description}) on ${id}: ${row.status}; ${row.checks.map((c) => `${c.name}: ${c.status} ${c.message ?? c.reason ?? ''}`).join(' | ').slice(0, 1500)}`;
      expect(row.status, detail).toBe(level(id) === 'MUST' ? 'fail' : 'warn');
      expect(failing.some((c) => m.plants!.test(c.name) || m.plants!.test(c.message ?? '')), `${detail}\nno failing check matches ${m.plants}`).toBe(true);
    }
    // Rows a prefix selected beyond the declared ones were not broken by this mutant.
    const others = reqs.filter((r) => !m.violates.includes(r.id) && (r.status === 'fail' || r.status === 'warn'));
    expect(others.map((r) => r.id), `${m.name} also fails rows it does not declare`).toEqual([]);
    if (m.violates.some((id) => level(id) === 'MUST')) expect(run.code).toBe(1);
    if (m.caughtBy === 'property') {
      // Only a property (or the model) may catch it: the scenarios of the same ids pass on it.
      const checks = reqs.filter((r) => m.violates.includes(r.id)).flatMap((r) => r.checks);
      expect(checks.filter((c) => c.status === 'fail').map((c) => c.name).filter((n, i, all) => all.indexOf(n) === i), 'failing checks').toEqual(
        checks.filter((c) => c.status === 'fail' && c.property).map((c) => c.name).filter((n, i, all) => all.indexOf(n) === i));
      const failed = checks.find((c) => c.status === 'fail' && c.property)!;
      expect(failed.property!.path, 'a failed property records the path that replays it').toMatch(/^\d+(:\d+)*$/);
      expect(failed.replay).toContain(`--replay ${failed.property!.id}:${failed.property!.path}`);
    }
  }, 120_000);
});
