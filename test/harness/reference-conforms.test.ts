import { expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/index.js';
import { CHECKS } from '../../suites/index.js';
import { QUICK_BUDGET } from '../../src/engine/property.js';
import { runCli } from './run-cli.js';

/** The faithful reference passes cleanly, and every catalog row is verified by some check. */
it('the reference server conforms: no failure, no warning, nothing untested', async () => {
  const run = await runCli(['--seed', '7']);
  expect(run.results, run.stderr).toBeDefined();
  const r = run.results!;
  const bad = r.requirements.filter((x) => x.status === 'fail' || x.status === 'warn')
    .map((x) => `${x.id}: ${x.checks.filter((c) => c.status === 'fail').map((c) => `${c.name}: ${c.message}`).join(' | ')}`);
  expect(bad).toEqual([]);
  expect(r.requirements.filter((x) => x.status === 'untested').map((x) => x.id)).toEqual([]);
  expect(r.requirements.map((x) => x.id).sort()).toEqual(CATALOG.map((x) => x.id).sort());
  // --budget is split among the searches the checks declare (check options.property): each search a full run
  // made is declared by the check that made it, with the rows that check verifies.
  const made = new Map<string, Set<string>>();
  for (const x of r.requirements) for (const c of x.checks) if (c.property) for (const id of c.requirementIds) made.set(c.property.id, (made.get(c.property.id) ?? new Set()).add(id));
  const declared = new Map<string, Set<string>>();
  for (const def of CHECKS) if (def.options.property) for (const id of def.requirementIds) declared.set(def.options.property, (declared.get(def.options.property) ?? new Set()).add(id));
  const sorted = (m: Map<string, Set<string>>) => Object.fromEntries([...m].map(([id, rows]) => [id, [...rows].sort()]).sort());
  expect(sorted(made)).toEqual(sorted(declared));
  // 20 searches: one per rule of a JSON-RPC response, and notifications accepted and refused apart (suites/properties/jsonrpc.suite.ts).
  expect(r.propertyBudget).toEqual({ budgetMs: QUICK_BUDGET.budgetMs, searches: 20, timeBoxMs: Math.floor(QUICK_BUDGET.budgetMs! / 20) });
  expect(run.code).toBe(0);
}, 300_000);
