import type { RequirementResult } from '../engine/results.js';
import { scrubKeyShapes } from '../kit/scrub.js';
import { oneLine } from '../kit/text.js';
import type { CheckRecord } from '../engine/verdict.js';
import type { Exchange } from '../wire/exchange.js';

/*
 * What the conformance reports (junit.xml, summary.md, report.html) share: value formatting, check labels,
 * which requirements fail the run, the compact wire log. Generic text helpers are in src/kit/.
 */

/** Expected/actual values as text: JSON (compact when short, indented when long); never throws. */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(not recorded)';
  let text: string | undefined;
  try {
    const replacer = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v);
    text = JSON.stringify(value, replacer);
    if (text !== undefined && text.length > 100) text = JSON.stringify(value, replacer, 2);
  } catch {
    text = undefined;
  }
  return scrubKeyShapes(text ?? String(value));
}

/**
 * A check's name as reports show it: a revision-dependent requirement's checks ran once per revision, so the
 * revision is part of the name (`name [2025-06-18]`); other checks keep their plain name.
 */
export function checkLabel(r: Pick<RequirementResult, 'revisions'>, c: Pick<CheckRecord, 'name' | 'revision'>): string {
  return r.revisions && c.revision ? `${c.name} [${c.revision}]` : c.name;
}

/** The checks of a requirement that failed. */
export function failedChecks(r: RequirementResult): CheckRecord[] {
  return r.checks.filter((c) => c.status === 'fail' || c.status === 'error');
}

/**
 * The sentence on the MUST rows no check could exercise, as summary.md and report.html put it under the
 * verdict: its head (`2 MUST requirements were not exercised`) and why they count.
 */
export function unexercisedWords(count: number, strict: boolean): { head: string; why: string } {
  return {
    head: `${count} MUST requirement${count === 1 ? ' was' : 's were'} not exercised`,
    why: `(every check not testable${strict ? '; --strict fails the run on them' : '; --strict would fail the run'})`,
  };
}

/** Does this requirement make the run fail? One rule, `decide`'s, in src/engine/results.ts. */
export { failsRun } from '../engine/results.js';

function exchangeLine(x: Exchange): string {
  const req = `${x.request.method} ${x.request.url}`;
  if (!x.response) return `${req} → ${x.error ? `error: ${oneLine(x.error, 200)}` : 'no response'}`;
  const r = x.response;
  const type = r.headers['content-type'] ?? '';
  const timing = `headers ${r.headersAt} ms, end ${r.endAt} ms${r.closed === false ? (r.readUntil === 'response' ? ', read up to the response (the stream was not waited out)' : ', still open at the deadline') : ''}`;
  return `${req} → ${r.status}${type ? ` ${type}` : ''} (${timing})`;
}

/**
 * A compact wire log for text reports: one line per exchange, the request body and the response body
 * or its SSE events (with arrival times), each cut short. At most `maxExchanges` exchanges.
 */
export function wireLogText(wire: Exchange[], maxExchanges = 8): string {
  if (wire.length === 0) return '(no HTTP exchange recorded)';
  const lines: string[] = [];
  for (const [i, x] of wire.slice(0, maxExchanges).entries()) {
    lines.push(`#${i + 1} ${exchangeLine(x)}`);
    if (x.request.body !== undefined && x.request.body !== '') lines.push(`   > ${oneLine(x.request.body, 400)}`);
    const r = x.response;
    if (r?.events && r.events.length > 0) {
      for (const e of r.events.slice(0, 10)) lines.push(`   < [${e.at} ms]${e.event ? ` event: ${e.event}` : ''}${e.id ? ` id: ${e.id}` : ''} data: ${oneLine(e.data, 300)}`);
      if (r.events.length > 10) lines.push(`   < … ${r.events.length - 10} more events`);
    } else if (r?.body !== undefined && r.body !== '') {
      lines.push(`   < ${oneLine(r.body, 600)}`);
    }
  }
  if (wire.length > maxExchanges) lines.push(`… ${wire.length - maxExchanges} more exchanges (see report.html)`);
  return scrubKeyShapes(lines.join('\n'));
}
