import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PropertyFailure, runProperty, type PropertyBudget } from '../../src/engine/property.js';
import type { Exchange } from '../../src/wire/exchange.js';

/** The property runner on its own: budgets, shrinking, replay by path, and runs that never end. */

const quick: PropertyBudget = { runs: 1000, timeLimitMs: 300, shrinkTimeMs: 2000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function failure(p: Promise<unknown>): Promise<PropertyFailure & { property: Record<string, unknown> }> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(PropertyFailure);
  return err as PropertyFailure & { property: Record<string, unknown> };
}

describe('runProperty', () => {
  it('a passing property records its runs; the wire keeps only the last run', async () => {
    const wire: Exchange[] = [];
    const record = await runProperty({ id: 'p', arbitrary: fc.nat(), predicate: async (n) => {
      wire.push({ request: { method: 'GET', url: `x/${n}`, headers: {} }, startedAt: '' });
      return n >= 0;
    } }, 1, { ...quick, runs: 50 }, wire);
    expect(record).toMatchObject({ id: 'p', seed: 1, runsRequested: 50, runs: 50, interrupted: false });
    expect(wire).toHaveLength(1);
  });

  it('a failure is shrunk to the minimal value, and its path replays exactly it', async () => {
    const spec = { id: 'p', arbitrary: fc.nat(1000), predicate: async (n: number) => n < 100 };
    const err = await failure(runProperty(spec, 5, quick, []));
    expect(err.property).toMatchObject({ counterexample: '100' });
    expect(err.message).toContain(`seed 5, path ${err.property.path as string}`);
    const again = await failure(runProperty(spec, 5, { ...quick, replay: { id: 'p', path: err.property.path as string } }, []));
    expect(again.property).toMatchObject({ runs: 1, counterexample: '100', replayed: err.property.path });
  });

  it('maxRuns caps quick mode only; deep mode (no time box) runs the whole budget', async () => {
    const spec = { id: 'p', arbitrary: fc.nat(), predicate: async () => true, maxRuns: 10 };
    expect((await runProperty(spec, 1, { ...quick, runs: 200 }, [])).runs).toBe(10);
    expect((await runProperty(spec, 1, { runs: 200, timeLimitMs: 0, shrinkTimeMs: 0 }, [])).runs).toBe(200);
  });

  it('a run that hangs inside the time box fails at the per-run deadline', async () => {
    const err = await failure(runProperty({ id: 'p', arbitrary: fc.nat(50), predicate: (n) => (n === 7 ? new Promise<boolean>(() => {}) : Promise.resolve(true)) }, 2, { runs: 2000, timeLimitMs: 0, shrinkTimeMs: 2000 }, [], 100));
    expect(err.property.counterexample).toBe('7');
  });

  it('a run still in flight when the time box ends is awaited: its failure is reported, not dropped', async () => {
    let calls = 0;
    const err = await failure(runProperty({ id: 'p', arbitrary: fc.nat(), predicate: async () => {
      calls += 1;
      if (calls < 3) return true;
      await sleep(400); // outlives the 300 ms box
      throw new Error('no reply');
    } }, 3, quick, [], 2000));
    expect(err.message).toMatch(/in flight when the time box ended failed.*no reply/);
  });

  it('a time box that ends before any run completes is a failure, never a pass without a run', async () => {
    let completed = 0;
    const outcome = await runProperty({ id: 'p', arbitrary: fc.nat(), predicate: async () => {
      await sleep(50);
      completed += 1;
      return true;
    } }, 4, { runs: 10, timeLimitMs: 1, shrinkTimeMs: 0 }, [], 1000).then((r) => r, (e: unknown) => e);
    // The box may end before fast-check starts a run (a failure) or during the first (let finish: one run).
    if (outcome instanceof PropertyFailure) expect(outcome.message).toMatch(/time box|could not run/);
    else expect({ runs: (outcome as { runs: number }).runs, completed }).toEqual({ runs: 1, completed: 1 });
  });

  it('a first run that outlives the time box is let finish and judged: a slow target is not a failed search', async () => {
    const box = { runs: 10, timeLimitMs: 30, shrinkTimeMs: 0 };
    const record = await runProperty({ id: 'p', arbitrary: fc.nat(), predicate: async () => {
      await sleep(200);
      return true;
    } }, 4, box, [], 1000);
    expect(record.runs).toBe(1);
    const err = await failure(runProperty({ id: 'p', arbitrary: fc.nat(), predicate: async () => {
      await sleep(200);
      return false;
    } }, 4, box, [], 1000));
    expect(err.message).toMatch(/in flight when the time box ended failed/);
  });
});

describe('runProperty under an outside budget (runLimit)', () => {
  it('calls the predicate at most runLimit times, shrinking and replay included, and reports the failure found', async () => {
    let calls = 0;
    const err = await failure(runProperty({ id: 'p', arbitrary: fc.nat(), runLimit: 2, predicate: async (n) => {
      calls += 1;
      return n < 0; // every run fails: fast-check would shrink and the runner replay, both spending the budget
    } }, 5, { runs: 100, timeLimitMs: 1500, shrinkTimeMs: 1000 }, [], 1000));
    expect(calls).toBe(1);
    expect(err.message).toMatch(/failed after 1 run/);
    let passes = 0;
    const record = await runProperty({ id: 'q', arbitrary: fc.nat(), runLimit: 3, predicate: async () => {
      passes += 1;
      await sleep(5);
      return true;
    } }, 5, { runs: 100, timeLimitMs: 1, shrinkTimeMs: 0 }, [], 1000);
    // The time box does not end a budgeted search early: every allowed run runs.
    expect({ runs: record.runs, passes }).toEqual({ runs: 3, passes: 3 });
  });
});

describe('runProperty replay', () => {
  it('a replay path that reaches no value is an error, not a pass', async () => {
    const spec = { id: 'p', arbitrary: fc.nat(1000), predicate: async () => true };
    const err = await failure(runProperty(spec, 5, { ...quick, replay: { id: 'p', path: '5:3' } }, []));
    expect(err.message).toMatch(/reaches no value/);
  });
});
