import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequirementResult, Results } from '../results.js';
import { describeProperty } from './property-text.js';
import type { CheckRecord } from '../verdict.js';
import type { Exchange } from '../wire/exchange.js';

/*
 * junit.xml: what CI test reporters read. One <testsuite> per requirement group, one <testcase> per
 * (requirement, check) with classname `<group>.<requirement id>`, so a check that verifies two
 * requirements appears under both. Failures count exactly the cases that make the exit code 1.
 *
 * This module also holds the plain-text helpers the other writers share (value formatting, key
 * scrubbing, the compact wire log).
 */

// ---------------------------------------------------------------------------------------------------
// Shared text helpers

/**
 * Keys are redacted upstream (src/wire/redact.ts); this is the second line: anything shaped like a
 * live key (`<prefix>_live_<base62 secret>`) loses its secret before it reaches a report.
 */
export function scrubKeys(text: string): string {
  return text.replace(/(?<=_live_)[A-Za-z0-9]{16,}/g, '[REDACTED]'); // a lookbehind: linear on long text
}

/** Cuts a string to `max` characters with a note saying how much was left out. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

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
  return scrubKeys(text ?? String(value));
}

/** One line: whitespace runs collapsed, cut to `max`. */
export function oneLine(text: string, max = 300): string {
  return truncate(text.replace(/\s+/g, ' ').trim(), max);
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
  return r.checks.filter((c) => c.status === 'fail');
}

/**
 * Does this requirement make the run fail? The same rule as `decide` in src/results.ts: a failing
 * MUST, or a warning under --strict, unless the baseline expects it; a stale baseline entry too.
 */
export function failsRun(r: RequirementResult, strict: boolean): boolean {
  if (r.baseline === 'stale') return true;
  return (r.status === 'fail' || (strict && r.status === 'warn')) && r.baseline !== 'expected-failure';
}

function exchangeLine(x: Exchange): string {
  const req = `${x.request.method} ${x.request.url}`;
  if (!x.response) return `${req} → ${x.error ? `error: ${oneLine(x.error, 200)}` : 'no response'}`;
  const r = x.response;
  const type = r.headers['content-type'] ?? '';
  const timing = `headers ${r.headersAt} ms, end ${r.endAt} ms${r.closed === false ? ', still open at the deadline' : ''}`;
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
  return scrubKeys(lines.join('\n'));
}

// ---------------------------------------------------------------------------------------------------
// XML

/**
 * Characters XML 1.0 forbids anywhere (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE,
 * U+FFFF). With the `u` flag a lone surrogate is one code point outside the allowed ranges.
 */
const ILLEGAL_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Escapes text for XML content and attribute values (either quote style), dropping illegal characters. */
export function xmlEscape(text: string): string {
  return text.replace(ILLEGAL_XML, '').replace(/[&<>"'\r]/g, (ch) => XML_ENTITIES[ch]!);
}

/** Attribute values are also whitespace-normalised by parsers: keep tabs and newlines as references. */
function xmlAttr(text: string): string {
  return xmlEscape(text).replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values).filter(([, v]) => v !== undefined).map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`).join('');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

// ---------------------------------------------------------------------------------------------------
// The JUnit model

interface TestCase {
  classname: string;
  name: string;
  timeMs: number;
  failure?: { message: string; type: string; body: string };
  skipped?: string;
  systemOut?: string;
}

function failureBody(r: RequirementResult, c: CheckRecord): string {
  return [
    `requirement: ${r.id} (${r.level}, ${r.source})`,
    `  "${r.text}"`,
    `check: ${checkLabel(r, c)} (${c.suite})`,
    ...(c.revision ? [`protocol revision: ${c.revision}`] : []),
    ...(c.message ? [`message: ${c.message}`] : []),
    ...(c.property ? [describeProperty(c.property)] : []),
    `expected: ${formatValue(c.expected)}`,
    `actual:   ${formatValue(c.actual)}`,
    ...(c.observations.length ? ['observations:', ...c.observations.map((o) => `  - ${o}`)] : []),
    ...(c.replay ? [`replay: ${c.replay}`] : []),
    'wire log:',
    wireLogText(c.wire),
  ].join('\n');
}

function caseFor(results: Results, r: RequirementResult, c: CheckRecord): TestCase {
  const tc: TestCase = { classname: `${r.group}.${r.id}`, name: checkLabel(r, c), timeMs: c.durationMs };
  const notes = [...(c.property ? [describeProperty(c.property)] : []), ...c.observations.map((o) => `observation: ${o}`)];
  const observed = notes.length ? notes.join('\n') : undefined;
  if (c.status === 'not-testable') {
    tc.skipped = `not testable: ${c.reason ?? 'no reason given'}`;
  } else if (c.status === 'fail' && r.baseline === 'expected-failure') {
    // Listed in --baseline: the run passes on it, so CI must not show it red; the text keeps the evidence.
    tc.skipped = `known failure (baseline): ${oneLine(c.message ?? 'failed', 200)}`;
    tc.systemOut = failureBody(r, c);
  } else if (c.status === 'fail' && (r.level === 'MUST' || results.strict)) {
    tc.failure = { message: oneLine(c.message ?? `${r.id} failed`, 500), type: r.level, body: failureBody(r, c) };
  } else if (c.status === 'fail') {
    // A failing SHOULD (or MAY/INFO) without --strict is a warning: the testcase passes, so CI tools show it
    // green and count it as passed; Jenkins, GitLab and most viewers show the warning text in the test's
    // output (system-out) when the case is opened, while summary-only reporters ignore it.
    tc.systemOut = `WARNING (${r.level} not met; fails the run only with --strict)\n${failureBody(r, c)}`;
  } else if (observed) {
    tc.systemOut = observed;
  }
  return tc;
}

function casesFor(results: Results, r: RequirementResult): TestCase[] {
  const classname = `${r.group}.${r.id}`;
  const cases: TestCase[] = r.checks.map((c) => caseFor(results, r, c));
  if (r.checks.length === 0) cases.push({ classname, name: 'no check', timeMs: 0, skipped: 'no check verifies this requirement' });
  if (r.baseline === 'stale') {
    cases.push({
      classname, name: 'baseline entry', timeMs: 0,
      failure: {
        message: `${r.id} is listed in the baseline as an expected failure but now ${r.status === 'pass' ? 'passes' : `is ${r.status}`}: remove it from the baseline`,
        type: 'baseline',
        body: `The --baseline file lists ${r.id} as failing; it is ${r.status} in this run. A stale entry fails the run so the baseline only shrinks.`,
      },
    });
  }
  return cases;
}

function renderCase(tc: TestCase): string {
  const open = `    <testcase${attrs({ classname: tc.classname, name: tc.name, time: seconds(tc.timeMs) })}`;
  const inner: string[] = [];
  if (tc.failure) inner.push(`      <failure${attrs({ message: tc.failure.message, type: tc.failure.type })}>${xmlEscape(tc.failure.body)}</failure>`);
  if (tc.skipped !== undefined) inner.push(`      <skipped${attrs({ message: tc.skipped })}/>`);
  if (tc.systemOut) inner.push(`      <system-out>${xmlEscape(tc.systemOut)}</system-out>`);
  return inner.length ? `${open}>\n${inner.join('\n')}\n    </testcase>` : `${open}/>`;
}

interface Counts { tests: number; failures: number; skipped: number; timeMs: number }

function count(cases: TestCase[]): Counts {
  return {
    tests: cases.length,
    failures: cases.filter((c) => c.failure).length,
    skipped: cases.filter((c) => c.skipped !== undefined).length,
    timeMs: cases.reduce((sum, c) => sum + c.timeMs, 0),
  };
}

/** The JUnit XML document for a run. */
export function renderJunit(results: Results): string {
  const groups = new Map<string, TestCase[]>();
  for (const r of results.requirements) {
    const list = groups.get(r.group) ?? [];
    list.push(...casesFor(results, r));
    groups.set(r.group, list);
  }
  // The JUnit XSD's timestamp has no zone; it is UTC here.
  const timestamp = results.startedAt.replace(/\.\d+Z$|Z$/, '');
  const properties = [
    ['target.kind', results.target.kind], ['target.baseUrl', results.target.baseUrl], ['target.mcpUrl', results.target.mcpUrl],
    ['profile', results.profile], ['protocolRevision', results.protocolRevision], ['seed', String(results.seed)],
    ['strict', String(results.strict)], ['verdict', results.verdict], ['tool', `${results.tool.name} ${results.tool.version}`],
  ].map(([name, value]) => `      <property${attrs({ name, value: scrubKeys(value!) })}/>`).join('\n');
  const suites: string[] = [];
  const total: Counts = { tests: 0, failures: 0, skipped: 0, timeMs: 0 };
  for (const [group, cases] of groups) {
    const n = count(cases);
    total.tests += n.tests;
    total.failures += n.failures;
    total.skipped += n.skipped;
    suites.push([
      `  <testsuite${attrs({ name: group, tests: n.tests, failures: n.failures, errors: 0, skipped: n.skipped, time: seconds(n.timeMs), timestamp })}>`,
      '    <properties>', properties, '    </properties>',
      ...cases.map(renderCase),
      '  </testsuite>',
    ].join('\n'));
  }
  const root = attrs({
    name: `${results.tool.name} conformance`, tests: total.tests, failures: total.failures, errors: 0, skipped: total.skipped,
    time: seconds(results.durationMs), timestamp,
  });
  return scrubKeys(`<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${root}>\n${suites.join('\n')}\n</testsuites>\n`);
}

export function writeJunit(results: Results, dir: string): void {
  writeFileSync(join(dir, 'junit.xml'), renderJunit(results));
}
