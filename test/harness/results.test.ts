import { describe, expect, it } from 'vitest';
import { aggregate, decide, failsRun, requirementStatus, untestableMusts } from '../../src/engine/results.js';
import { CheckFailure, isVerdict, markServiceFault, NotTestable, type CheckRecord } from '../../src/engine/verdict.js';
import { PropertyFailure } from '../../src/engine/property.js';
import { CATALOG } from '../../src/catalog/index.js';

const rec = (ids: string[], status: CheckRecord['status']): CheckRecord => ({ name: 'c', suite: 's', requirementIds: ids, status, observations: [], wire: [], durationMs: 1 });

describe('requirement status', () => {
  it('is untested without checks', () => expect(requirementStatus('MUST', [])).toBe('untested'));
  it('fails a MUST on any failing check', () => expect(requirementStatus('MUST', [rec(['x'], 'pass'), rec(['x'], 'fail')])).toBe('fail'));
  it.each(['SHOULD', 'MAY', 'INFO'] as const)('warns for a failing %s', (level) => expect(requirementStatus(level, [rec(['x'], 'fail')])).toBe('warn'));
  it('passes only when every check that concerns the target passed: one not testable among passes is not proof', () => {
    expect(requirementStatus('MUST', [rec(['x'], 'not-testable')])).toBe('not-testable');
    expect(requirementStatus('MUST', [rec(['x'], 'not-testable'), rec(['x'], 'pass')])).toBe('not-testable');
    // A check of a revision the target does not speak does not concern it.
    expect(requirementStatus('MUST', [{ ...rec(['x'], 'not-testable'), notApplicable: true }, rec(['x'], 'pass')])).toBe('pass');
    // Every check not applicable: the row's own status, apart from not testable (issue 36).
    expect(requirementStatus('MUST', [{ ...rec(['x'], 'not-testable'), notApplicable: true }])).toBe('not-applicable');
  });
});

describe('run verdict', () => {
  const must = CATALOG.find((r) => r.level === 'MUST')!;
  const should = CATALOG.find((r) => r.level === 'SHOULD');
  const all = () => true;

  it('passes when nothing fails and counts totals', () => {
    const { requirements, totals } = aggregate([rec([must.id], 'pass')], (r) => r.id === must.id, new Set());
    expect(totals).toEqual({ pass: 1, fail: 0, warn: 0, notTestable: 0, untested: 0, error: 0, notApplicable: 0 });
    expect(decide(requirements, false).exitCode).toBe(0);
  });

  it('counts a row whose every check is not applicable apart from the not testable ones', () => {
    const [a, b] = CATALOG.filter((r) => r.level === 'MUST');
    const records = [
      { ...rec([a!.id], 'not-testable'), reason: 'no sessions here', notApplicable: true },
      { ...rec([b!.id], 'not-testable'), reason: 'no key' },
    ];
    const { totals, requirements } = aggregate(records, (r) => r.id === a!.id || r.id === b!.id, new Set());
    expect(totals).toMatchObject({ notTestable: 1, notApplicable: 1 });
    expect(requirements.map((r) => r.status)).toEqual(CATALOG.filter((r) => r.id === a!.id || r.id === b!.id).map((r) => (r.id === a!.id ? 'not-applicable' : 'not-testable')));
  });

  it('fails on a failing MUST and names it', () => {
    const { requirements } = aggregate([rec([must.id], 'fail')], (r) => r.id === must.id, new Set());
    const d = decide(requirements, false);
    expect(d.exitCode).toBe(1);
    expect(d.verdict).toContain(must.id);
  });

  it('a SHOULD fails the run only under --strict', () => {
    if (!should) return expect(CATALOG.some((r) => r.level === 'SHOULD')).toBe(false);
    const { requirements } = aggregate([rec([should.id], 'fail')], (r) => r.id === should.id, new Set());
    expect(decide(requirements, false).exitCode).toBe(0);
    expect(decide(requirements, true).exitCode).toBe(1);
  });

  it('a baseline entry excuses its failure; a baseline entry that passes is stale and fails the run', () => {
    const failing = aggregate([rec([must.id], 'fail')], (r) => r.id === must.id, new Set([must.id]));
    expect(failing.requirements[0]!.baseline).toBe('expected-failure');
    expect(decide(failing.requirements, false)).toMatchObject({ exitCode: 0, verdict: expect.stringMatching(/1 expected failure/) });
    const passing = aggregate([rec([must.id], 'pass')], (r) => r.id === must.id, new Set([must.id]));
    expect(passing.requirements[0]!.baseline).toBe('stale');
    const d = decide(passing.requirements, false);
    expect(d.exitCode).toBe(1);
    expect(d.verdict).toMatch(/stale/);
  });

  it('untested requirements are reported, not passed, and fail the run', () => {
    const { requirements, totals } = aggregate([], all, new Set());
    expect(totals.untested).toBe(CATALOG.length);
    expect(totals.pass).toBe(0);
    const d = decide(requirements, false);
    expect(d.exitCode).toBe(1);
    expect(d.verdict).toMatch(/have no check/);
  });

  it('--strict fails on SHOULD only: a failing MAY or INFO never fails the run', () => {
    for (const level of ['MAY', 'INFO'] as const) {
      const row = CATALOG.find((r) => r.level === level);
      if (!row) continue;
      const { requirements } = aggregate([rec([row.id], 'fail')], (r) => r.id === row.id, new Set());
      expect(requirements[0]!.status).toBe('warn');
      expect(decide(requirements, true).exitCode, `${level} under --strict`).toBe(0);
    }
  });

  it('a MUST whose checks are all not testable is named, and fails only under --strict; not applicable is spared', () => {
    const untestable = aggregate([rec([must.id], 'not-testable')], (r) => r.id === must.id, new Set());
    expect(untestableMusts(untestable.requirements).map((r) => r.id)).toEqual([must.id]);
    expect(decide(untestable.requirements, false).exitCode).toBe(0);
    expect(decide(untestable.requirements, true)).toMatchObject({ exitCode: 1, verdict: expect.stringContaining('not testable (strict)') });
    const inapplicable = aggregate([{ ...rec([must.id], 'not-testable'), notApplicable: true }], (r) => r.id === must.id, new Set());
    expect(untestableMusts(inapplicable.requirements)).toEqual([]);
    expect(decide(inapplicable.requirements, true).exitCode).toBe(0);
    expect(failsRun(inapplicable.requirements[0]!, true)).toBe(false);
    // Exercised in part (one check passed): not testable as a row, yet not among the unexercised.
    const partly = aggregate([rec([must.id], 'pass'), rec([must.id], 'not-testable')], (r) => r.id === must.id, new Set());
    expect(partly.requirements[0]!.status).toBe('not-testable');
    expect(untestableMusts(partly.requirements)).toEqual([]);
  });

  it('a check the harness broke on withholds the verdict: exit 2, never a pass or a fail of the service', () => {
    const { requirements, totals } = aggregate([rec([must.id], 'error')], (r) => r.id === must.id, new Set());
    expect(requirements[0]!.status).toBe('error');
    expect(totals.error).toBe(1);
    expect(decide(requirements, false)).toMatchObject({ exitCode: 2, verdict: expect.stringMatching(/^harness error/) });
    // A real failure beside it still shows on its row.
    expect(requirementStatus('MUST', [rec(['x'], 'error'), rec(['x'], 'fail')])).toBe('fail');
  });
});

describe('verdict or harness error', () => {
  it('judges the service on verify failures, assertions, tagged service faults, unparsable replies and expected/actual', () => {
    expect(isVerdict(new CheckFailure('m', 1, 2))).toBe(true);
    expect(isVerdict(new NotTestable('r'))).toBe(true);
    expect(isVerdict(Object.assign(new Error('x'), { name: 'AssertionError' }))).toBe(true);
    expect(isVerdict(markServiceFault(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })))).toBe(true);
    expect(isVerdict(new SyntaxError('Unexpected token'))).toBe(true);
    expect(isVerdict(Object.assign(new Error('404 expected'), { expected: 404, actual: 500 }))).toBe(true);
  });

  it('a TypeError, a ReferenceError or a bare Error of the plumbing is the harness\'s own', () => {
    expect(isVerdict(new TypeError("Cannot read properties of undefined (reading 'result')"))).toBe(false);
    expect(isVerdict(new ReferenceError('x is not defined'))).toBe(false);
    expect(isVerdict(new Error('run broker /permit: 500'))).toBe(false);
    expect(isVerdict('a string')).toBe(false);
  });

  it('a failed property is judged by its failing run\'s error', () => {
    expect(isVerdict(new PropertyFailure('property p failed', 1, 2, new CheckFailure('m', 1, 2)))).toBe(true);
    expect(isVerdict(new PropertyFailure('property p failed', undefined, undefined, new TypeError('boom')))).toBe(false);
  });
});
