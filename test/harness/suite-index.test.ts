import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defineSuite } from '../../src/engine/check.js';
import { CATALOG } from '../../src/catalog/index.js';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { SUITES } from '../../suites/index.js';

/**
 * The suites are a list (suites/index.ts), each suite the list of its checks: what a run plans from, read
 * without running anything. Every suite file is in the index, every catalog row is judged by some check, and
 * a check cannot join a suite once it is sealed.
 */
describe('the suite index', () => {
  it('lists every suite file once, by its group, the interop matrix last', () => {
    const files = readdirSync(`${PACKAGE_ROOT}/suites`, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.suite.ts')).map((f) => f.replace(/\.suite\.ts$/, '')).sort();
    expect(SUITES.map((s) => s.group).sort()).toEqual(files);
    expect(SUITES.at(-1)!.group).toBe('interop-matrix');
    // By file name, as a directory lists them ("streaming-generic.suite.ts" before "streaming.suite.ts").
    const rest = SUITES.slice(0, -1).map((s) => `${s.group}.suite.ts`);
    expect(rest).toEqual([...rest].sort());
  });

  it('every catalog row is cited by a check, and every id a check cites is a row', () => {
    const cited = new Set(SUITES.flatMap((s) => s.checks.flatMap((c) => c.requirementIds)));
    // Rows judged run-wide (every reply of the run) have their checks outside the suites.
    const runWide = ['auth-key-never-echoed', 'jsonrpc-no-5xx'];
    expect(CATALOG.map((r) => r.id).filter((id) => !cited.has(id) && !runWide.includes(id))).toEqual([]);
    const ids = new Set(CATALOG.map((r) => r.id));
    expect([...cited].filter((id) => !ids.has(id))).toEqual([]);
  });

  it('every check names its suite file and block; a check outside a block or after the seal is refused', () => {
    for (const s of SUITES) for (const c of s.checks) expect(c.suite.startsWith(`suites/${s.group}.suite.ts > `), c.suite).toBe(true);
    const { check, describe: block, seal } = defineSuite('synthetic');
    const body = async () => {};
    expect(() => check({ ids: 'auth-missing-key-401', name: 'outside', run: body })).toThrow(/outside a describe block of suites\/synthetic\.suite\.ts/);
    block('one', () => check({ ids: 'auth-missing-key-401', name: 'inside', run: body }));
    expect(() => check({ ids: 'no-such-row', name: 'unknown row', run: body })).toThrow();
    const suite = seal();
    expect(suite.checks.map((c) => c.name)).toEqual(['inside']);
    expect(() => block('late', () => check({ ids: 'auth-missing-key-401', name: 'late', run: body }))).toThrow(/after the suite suites\/synthetic\.suite\.ts was sealed/);
    expect(suite.checks).toHaveLength(1);
  });
});
