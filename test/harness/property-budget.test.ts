import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/engine/run-settings.js';
import { parseConformanceArgs } from '../../src/cli/conformance-options.js';
import { UsageError } from '../../src/kit/options.js';
import { MIN_TIME_BOX_MS, QUICK_BUDGET, timeBoxOf } from '../../src/engine/property.js';
import { CHECKS } from '../../suites/index.js';
import { planChecks, runOrder, searches, searchesIn } from '../../src/engine/runner.js';
import type { Revision } from '../../src/catalog/types.js';
import type { TargetInfo } from '../../src/targets/target-info.js';

/** --budget: the run's search time, split evenly among the searches its selection makes. */
describe('the property search budget', () => {
  /** The searches a run against a target speaking `revisions` makes for `only` (the checks declare them). */
  const searches = async (revisions: Revision[], only: string[] = []) => {
    const target = { profile: { kind: 'service' }, revisions } as unknown as TargetInfo;
    return searchesIn(planChecks(CHECKS, target, DEFAULT_SETTINGS, only));
  };

  it('counts the searches the checks of a selection declare, a per-revision search once per revision spoken', async () => {
    const everyRevision = await searches(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    expect(everyRevision).toBe(20); // three of them one per rule of a JSON-RPC response, two for notifications (accepted, refused)
    expect(await searches(['2025-06-18'])).toBe(everyRevision - 1); // tool-arguments-sep-1303 runs once, not testable
    expect(await searches(['2025-11-25'], ['auth-key-not-echoed'])).toBe(2); // two searches verify it
    expect(await searches(['2025-11-25'], ['auth-missing-key-401'])).toBe(0);
  });

  it('splits the budget evenly, never below the shortest box', () => {
    expect(timeBoxOf(12_000, 17)).toBe(705);
    expect(timeBoxOf(12_000, 1)).toBe(12_000);
    expect(timeBoxOf(12_000, 0)).toBe(12_000);
    expect(timeBoxOf(500, 17)).toBe(MIN_TIME_BOX_MS);
  });

  const parse = (args: string[]) => parseConformanceArgs(args, () => undefined).options.property!;

  it('the command line: quick mode shares the default budget; --budget, --property-time and deep mode', () => {
    expect(parse([])).toMatchObject({ runs: QUICK_BUDGET.runs, budgetMs: QUICK_BUDGET.budgetMs });
    expect(parse(['--budget', '30'])).toMatchObject({ budgetMs: 30_000 });
    expect(parse(['--budget', '2.5', '--runs', '50'])).toMatchObject({ budgetMs: 2500, runs: 50 });
    const boxed = parse(['--property-time', '800']);
    expect(boxed).toMatchObject({ timeLimitMs: 800 });
    expect(boxed.budgetMs).toBeUndefined();
    const deep = parse(['--runs', '10000']);
    expect(deep).toMatchObject({ runs: 10_000, timeLimitMs: 0 });
    expect(deep.budgetMs).toBeUndefined();
  });

  it('refuses a budget that is no number, is not positive, or comes with --property-time', () => {
    for (const args of [['--budget', 'x'], ['--budget', '0'], ['--budget', '-3'], ['--budget', ''], ['--budget', '5', '--property-time', '100']]) {
      expect(() => parse(args), args.join(' ')).toThrow(UsageError);
    }
  });
});

/** Searches are time-boxed and take what the event loop leaves them: side by side, they come after the scenario checks. */
describe('the order of the groups', () => {
  const plan = async () => {
    const target = { profile: { kind: 'service' }, revisions: ['2025-11-25'] } as unknown as TargetInfo;
    return planChecks(CHECKS, target, DEFAULT_SETTINGS, []);
  };
  const searching = (planned: Parameters<typeof searches>[0][]) => planned.some(searches);

  it('several at once: every group without a search first, then those with one, each part in load order', async () => {
    const groups = await plan();
    const order = runOrder(groups, 4);
    expect(order.map(([g]) => g).sort()).toEqual([...groups.keys()].sort());
    const firstSearching = order.findIndex(([, planned]) => searching(planned));
    expect(firstSearching).toBeGreaterThan(0);
    expect(order.slice(firstSearching).every(([, planned]) => searching(planned))).toBe(true);
    const loaded = [...groups.keys()];
    for (const part of [order.slice(0, firstSearching), order.slice(firstSearching)]) {
      const names = part.map(([g]) => g);
      expect(names).toEqual([...names].sort((a, b) => loaded.indexOf(a) - loaded.indexOf(b)));
    }
  });

  it('one at a time (a deployment): load order', async () => {
    const groups = await plan();
    expect(runOrder(groups, 1).map(([g]) => g)).toEqual([...groups.keys()]);
  });
});
