import { describe, expect, it } from 'vitest';
import { aggregate, decide, requirementStatus } from '../../src/results.js';
import type { CheckRecord } from '../../src/verdict.js';
import { CATALOG } from '../../src/catalog/index.js';

const rec = (ids: string[], status: CheckRecord['status']): CheckRecord => ({ name: 'c', suite: 's', requirementIds: ids, status, observations: [], wire: [], durationMs: 1 });

describe('requirement status', () => {
  it('is untested without checks', () => expect(requirementStatus('MUST', [])).toBe('untested'));
  it('fails a MUST on any failing check', () => expect(requirementStatus('MUST', [rec(['x'], 'pass'), rec(['x'], 'fail')])).toBe('fail'));
  it.each(['SHOULD', 'MAY', 'INFO'] as const)('warns for a failing %s', (level) => expect(requirementStatus(level, [rec(['x'], 'fail')])).toBe('warn'));
  it('is not testable only when every check is', () => {
    expect(requirementStatus('MUST', [rec(['x'], 'not-testable')])).toBe('not-testable');
    expect(requirementStatus('MUST', [rec(['x'], 'not-testable'), rec(['x'], 'pass')])).toBe('pass');
  });
});

describe('run verdict', () => {
  const must = CATALOG.find((r) => r.level === 'MUST')!;
  const should = CATALOG.find((r) => r.level === 'SHOULD');
  const all = () => true;

  it('passes when nothing fails and counts totals', () => {
    const { requirements, totals } = aggregate([rec([must.id], 'pass')], (r) => r.id === must.id, new Set());
    expect(totals).toEqual({ pass: 1, fail: 0, warn: 0, notTestable: 0, untested: 0 });
    expect(decide(requirements, false).exitCode).toBe(0);
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

  it('untested requirements are reported, not passed', () => {
    const { totals } = aggregate([], all, new Set());
    expect(totals.untested).toBe(CATALOG.length);
    expect(totals.pass).toBe(0);
  });
});
