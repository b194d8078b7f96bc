import type { RequirementResult, Results } from '../../src/engine/results.js';

/** The requirement rows a run failed (a MUST with a failing check). */
export function failingRows(results: Results): RequirementResult[] {
  return results.requirements.filter((r) => r.status === 'fail');
}

/** One line per failing check of these rows: id, check, message, expected and actual (cut short). */
export function describeRows(rows: RequirementResult[]): string {
  const brief = (v: unknown) => (v === undefined ? '' : JSON.stringify(v).slice(0, 200));
  return rows.flatMap((r) => r.checks.filter((c) => c.status === 'fail')
    .map((c) => `  ${r.id}: ${c.name}: ${c.message ?? ''} (expected ${brief(c.expected)}, actual ${brief(c.actual)})`)).join('\n');
}
