/**
 * The probe's verdicts, judged from what it measured (Retry-After present and honest, isolation between
 * keys, the --expect-rate/--expect-burst gates), and the words its findings use for those measurements.
 */
import { expectGate, fmt, verdict, type Verdict } from './analysis.js';
import { is2xx } from './client.js';
import type { HeaderFindings } from '../../src/wire/rate-limit-headers.js';
import type { IsolationFindings } from './isolation.js';
import type { On429Tally, StopReason } from './probe-result.js';
import type { RetryAfterFindings } from './retry-after.js';

/** Whether throttling key A touched a side key, in words with the counts. */
export function yesNo(f: IsolationFindings['sibling']): string {
  if (f.touched === undefined) return f.notTestable ?? 'not testable';
  return f.touched ? `yes (${f.statuses.filter((s) => s === 429).length} of ${f.statuses.length} requests refused)` : `no (${f.statuses.length} of ${f.statuses.length} served)`;
}

/** The Retry-After finding: the value, and what the retries at the wait and at half of it got. */
export function retryAfterLine(r: RetryAfterFindings): string {
  if (r.notTestable && !r.atWait) return `Retry-After: ${r.value !== undefined ? `${JSON.stringify(r.value)}: ` : ''}${r.notTestable}`;
  const parts = [`Retry-After: ${JSON.stringify(r.value)} (${r.form})`];
  if (r.atWait) parts.push(`retry after ${r.atWait.waitedS.toFixed(2)} s ${is2xx(r.atWait.status) ? 'served' : `answered ${r.atWait.status || 'nothing'}`}${r.servedAfterS !== undefined ? ` (first served ${r.servedAfterS.toFixed(2)} s after the 429)` : r.atWait.status === 429 ? ' (not served within the search)' : ''}`);
  if (r.early) parts.push(`retry at half the wait (${r.early.waitedS.toFixed(2)} s) ${r.overstates ? 'served: Retry-After overstates the wait' : `answered ${r.early.status || 'nothing'}: the wait is needed`}`);
  return parts.join('; ');
}

/** The RateLimit header fields seen, parsed, and whether they agree with what was measured. */
export function headerLines(h: HeaderFindings): string[] {
  const lines: string[] = [];
  if (h.policy) lines.push(`RateLimit-Policy: ${h.policy.ok ? h.policy.value.map((p) => `"${p.name}" q=${p.quota}${p.windowS !== undefined ? ` w=${p.windowS}` : ''}${p.unit !== 'requests' ? ` qu=${p.unit}` : ''}${p.partitionKeyBytes !== undefined ? ` pk=<${p.partitionKeyBytes} bytes>` : ''}`).join(', ') : `unparseable (${h.policy.why})`}`);
  for (const [label, s] of [['RateLimit on a 2xx', h.state2xx], ['RateLimit on a 429', h.state429]] as const) {
    if (s) lines.push(`${label}: ${s.ok ? s.value.map((x) => `"${x.name}" r=${x.remaining}${x.resetS !== undefined ? ` t=${x.resetS}` : ''}`).join(', ') : `unparseable (${s.why})`}`);
  }
  for (const l of h.legacy) lines.push(`${l.family}: limit ${l.limit ?? '-'}, remaining ${l.remaining ?? '-'}, reset ${l.reset ?? '-'}`);
  for (const a of h.agreement) lines.push(`  ${a.what}: ${fmt(a.header)} vs ${fmt(a.measured)}: ${a.agrees ? 'agrees' : 'differs'}`);
  if (lines.length === 0) lines.push('RateLimit header fields: none sent');
  return lines;
}

/** The probe's verdicts, in a fixed order (load/probe/analysis.ts VERDICTS). */
export function judge(x: {
  on429: On429Tally;
  retryAfter: RetryAfterFindings;
  isolation: IsolationFindings | undefined;
  isolationNote: string | undefined;
  rate: number | undefined;
  burst: number | undefined;
  noLimitUpTo: number | undefined;
  stop: StopReason | undefined;
  /** The highest offered rate a step served without throttling (0: none). */
  cleanUpTo?: number;
  /** Why the steps ended for the probe's own reasons (its bounds, its machine), when no rate was measured. */
  probeBound?: string;
  o: { expectRate?: number | undefined; expectBurst?: number | undefined; tolerancePct: number };
}): Verdict[] {
  const out: Verdict[] = [];
  const { on429, retryAfter: r } = x;

  // RFC 6585 §4: the 429 "MAY include a Retry-After header indicating how long to wait before making a new
  // request"; a probe for release engineers holds the service to it on every 429.
  if (on429.total === 0) out.push(verdict('retry-after-present', 'not-testable', 'no 429 seen'));
  else if (on429.missing || on429.malformed) out.push(verdict('retry-after-present', 'fail', `${on429.missing + on429.malformed} of ${on429.total} 429s carried no usable Retry-After (${on429.missing} without, ${on429.malformed} malformed)`));
  else out.push(verdict('retry-after-present', 'pass', `all ${on429.total} 429s carried Retry-After (e.g. ${JSON.stringify(r.value ?? '')})`));

  // RFC 9110 §10.2.3: Retry-After indicates "how long the user agent ought to wait before making a
  // follow-up request": after that wait the follow-up must be served.
  if (!r.atWait) out.push(verdict('retry-after-honest', 'not-testable', r.notTestable ?? 'not tested'));
  else if (is2xx(r.atWait.status)) {
    out.push(verdict('retry-after-honest', 'pass', `a retry ${r.atWait.waitedS.toFixed(2)} s after a 429 with Retry-After: ${r.atWait.value} was served${r.overstates ? `; observation: Retry-After overstates the wait (a retry after ${r.early!.waitedS.toFixed(2)} s was served too)` : r.early ? `; a retry after ${r.early.waitedS.toFixed(2)} s was refused (the wait is needed)` : ''}`));
  } else if (r.atWait.status === 429) {
    out.push(verdict('retry-after-honest', 'fail', `retry after Retry-After was refused: waited ${r.atWait.waitedS.toFixed(2)} s (Retry-After: ${r.atWait.value}), got 429${r.servedAfterS !== undefined ? `; first served ${r.servedAfterS.toFixed(2)} s after the 429` : ''}`));
  } else {
    out.push(verdict('retry-after-honest', 'not-testable', `the retry after Retry-After was answered ${r.atWait.status || 'with no reply'}`));
  }

  for (const [id, which] of [['isolation-sibling', 'sibling'], ['isolation-other-workspace', 'other']] as const) {
    const f = x.isolation?.[which];
    const label = which === 'sibling' ? 'sibling' : 'other workspace';
    if (!f) out.push(verdict(id, 'not-testable', x.isolationNote ?? 'not tested'));
    else if (f.touched === undefined) out.push(verdict(id, 'not-testable', f.notTestable ?? 'not tested'));
    else out.push(verdict(id, f.touched ? 'fail' : 'pass', `throttling key A touched ${label}: ${yesNo(f)}, while key A got ${x.isolation!.a429DuringSide} × 429`));
  }

  const missing = x.noLimitUpTo !== undefined ? `no limit found up to ${fmt(x.noLimitUpTo)} req/s` : `no sustained limit measured (${x.stop})`;
  out.push(rateGate(x, missing));
  out.push(expectGate('expect-burst', x.o.expectBurst, x.burst, x.o.tolerancePct, 'requests', x.rate === undefined ? missing : 'no 429 from an idle key'));
  return out;
}

/**
 * --expect-rate. No rate measured because the probe stopped for its own reasons (time budget, request cap, or
 * a rate it could not offer on this machine) is not the service's fault: not testable, unless the steps served
 * more than the expected rate without a 429, which the service did (then it fails, as no limit found does).
 */
function rateGate(x: Parameters<typeof judge>[0], missing: string): Verdict {
  const { expectRate, tolerancePct } = x.o;
  if (expectRate === undefined || x.rate !== undefined || x.probeBound === undefined) return expectGate('expect-rate', expectRate, x.rate, tolerancePct, 'req/s', missing);
  const clean = x.cleanUpTo ?? 0;
  if (clean > expectRate * (1 + tolerancePct / 100)) {
    return verdict('expect-rate', 'fail', `expected ${fmt(expectRate)} req/s, but steps up to ${fmt(clean)} req/s were served without throttling (then ${x.probeBound})`);
  }
  return verdict('expect-rate', 'not-testable', `expected ${fmt(expectRate)} req/s, measured none: ${x.probeBound}; the service is not at fault (a longer --max-time, or a quieter machine, lets the probe measure it)`);
}
