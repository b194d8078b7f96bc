import type { RequirementResult, Results } from '../engine/results.js';
import { checkRunCount, failsRun, untestableMusts } from '../engine/results.js';
import { jsonSnippet, oneLine } from '../kit/text.js';
import type { CheckRecord } from '../engine/verdict.js';

/** Failing rows printed in full on the console; the rest are counted (summary.md and report.html have all). */
const SHOWN = 10;
/** Characters of an expected or actual value on one console line. */
const VALUE_CHARS = 160;

/** An expected or actual value on one line: JSON (whatever it is, a cycle too), cut with a note of what was left out. */
const valueLine = (value: unknown): string => oneLine(jsonSnippet(value, 100 * VALUE_CHARS), VALUE_CHARS);

/** The first check that makes the row fail (a failing check fails a MUST and warns a SHOULD), or broke. */
function firstFailing(r: RequirementResult): CheckRecord | undefined {
  return r.checks.find((c) => c.status === 'fail') ?? r.checks.find((c) => c.status === 'error');
}

/**
 * What a person reads first under the verdict: each requirement that makes the run fail, with its level, why
 * (its first failing check's message, expected and actual) and the command that replays it; then the MUST
 * rows that were never exercised. Empty when there is nothing of either.
 */
export function consoleFindings(results: Results): string[] {
  const lines: string[] = [];
  const failing = results.requirements.filter((r) => failsRun(r, results.strict));
  if (failing.length > 0) lines.push(`failing requirements (${failing.length}):`);
  for (const r of failing.slice(0, SHOWN)) {
    const check = firstFailing(r);
    const why = r.baseline === 'stale' ? 'expected to fail by the baseline, but passes now'
      : r.status === 'untested' ? 'no check ran for it'
      : r.status === 'not-testable' ? 'MUST, never exercised (--strict): every check was not testable'
      : check?.message ?? check?.reason ?? r.status;
    lines.push(`  ${r.level} ${r.id}: ${why}`);
    if (check && check.status === 'fail' && check.expected !== undefined) lines.push(`      expected ${valueLine(check.expected)}`, `      actual   ${valueLine(check.actual)}`);
    if (check?.replay) lines.push(`      replay: ${check.replay}`);
  }
  if (failing.length > SHOWN) lines.push(`  and ${failing.length - SHOWN} more (summary.md, report.html)`);
  // A pass that proved nothing there must not read as a full pass (with --strict these are among the failing).
  const unexercised = results.strict ? [] : untestableMusts(results.requirements);
  if (unexercised.length > 0) {
    lines.push(`not exercised: ${unexercised.length} MUST requirement${unexercised.length === 1 ? '' : 's'} (every check not testable; --strict fails the run on them):`);
    for (const r of unexercised.slice(0, SHOWN)) lines.push(`  ${r.id}: ${r.checks.find((c) => c.status === 'not-testable')?.reason ?? 'no reason given'}`);
    if (unexercised.length > SHOWN) lines.push(`  and ${unexercised.length - SHOWN} more (summary.md, report.html)`);
  }
  return lines;
}

/** The totals line, saying what it counts: requirements (rows of the catalog), and the check runs behind them. */
export function totalsLine(results: Results): string {
  const t = results.totals;
  const checks = checkRunCount(results);
  const lost = results.targetLost ? ` (${results.targetLost.unjudged.length} of them unjudged: the target stopped answering)` : '';
  return `requirements: ${t.pass} pass, ${t.fail} fail, ${t.warn} warn, ${t.notTestable} not testable${lost}${t.notApplicable ? `, ${t.notApplicable} not applicable` : ''}, ${t.untested} untested${t.error ? `, ${t.error} harness error` : ''}; ${checks} check runs (${(results.durationMs / 1000).toFixed(1)} s)`;
}
