import type { CheckRecord } from '../engine/verdict.js';
import type { Exchange } from '../wire/exchange.js';
import type { KeySighting, ReplyInspection } from '../wire/key-sightings.js';

/** "There is no way to show it again": the row every reply of the run is judged by. */
export const KEY_NEVER_ECHOED = 'auth-key-never-echoed';

/** `POST …/api/mcp/v1 (tools/list), sent by <check>: HTTP 429; the body: the run's key, upper-cased`. */
export function describeSighting(s: KeySighting): string {
  return `${s.request}, sent by ${s.by}: HTTP ${s.status}; ${s.found.join('; ')}`;
}

/**
 * The run-wide half of `auth-key-never-echoed`: every reply of the target that any check, the interop matrix or
 * the run's own setup received was looked through by its recorder before it was redacted (src/wire/key-sightings.ts);
 * one that carried a key the run holds fails the row, whatever check's request it answered and whatever that
 * check concluded (a 429 waited out, a stream that passed). The row's own check (suites/auth.suite.ts) sends
 * valid requests of its own, so a run narrowed to the row judges replies too.
 */
export function keyEchoRecord(ledger: ReplyInspection): CheckRecord {
  const { sightings, sightingsLeftOut, inspected } = ledger;
  const base = {
    name: 'no reply the run received, to any check\'s request, repeats a key the run holds, in any spelling',
    // Judged by the run once every check has ended, but named after the row's suite, where its own check lives.
    suite: 'suites/auth.suite.ts > every reply of the run (src/judging/key-echoes.ts)',
    requirementIds: [KEY_NEVER_ECHOED],
    durationMs: 0,
  };
  const count = sightings.length + sightingsLeftOut;
  if (count === 0) {
    if (inspected === 0) return { ...base, status: 'not-testable', reason: 'the run received no reply of the target to look through', observations: [], wire: [] };
    return { ...base, status: 'pass', observations: [`${inspected} replies of the target looked through: none carried a key the run holds`], wire: [] };
  }
  const listed = sightings.slice(0, 5).map(describeSighting);
  return {
    ...base,
    status: 'fail',
    message: `${count} of the ${inspected} replies the run received carried a key the run holds: ${listed.join(' | ')}${count > listed.length ? ` | and ${count - listed.length} more` : ''}`,
    expected: 'no key, in any spelling, in any reply but the bootstrap reply that minted it',
    actual: sightings.map((s) => ({ request: s.request, by: s.by, status: s.status, found: s.found })),
    observations: sightingsLeftOut > 0 ? [`${sightingsLeftOut} more replies carried a key; their exchanges are left out`] : [],
    wire: sightings.map((s) => s.exchange).filter((x): x is Exchange => x !== undefined),
  };
}
