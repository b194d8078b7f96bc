import type { RequirementResult, Results } from '../engine/results.js';
import { xmlAttr, xmlEscape } from '../kit/escape.js';
import { scrubKeyShapes } from '../kit/scrub.js';
import { oneLine } from '../kit/text.js';
import type { CheckRecord } from '../engine/verdict.js';
import { checkLabel, failsRun, formatValue, wireLogText } from './common.js';
import { describeProperty } from './property-text.js';

/*
 * junit.xml: what CI test reporters read. One <testsuite> per requirement group, one <testcase> per
 * (requirement, check) with classname `<group>.<requirement id>`, so a check that verifies two
 * requirements appears under both. Failures count exactly the cases that make the exit code 1.
 */

// ---------------------------------------------------------------------------------------------------
// XML

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
  /** The check's start (ms since the epoch), when recorded: a suite's time is its cases' wall time. */
  startMs?: number;
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
  const startMs = c.startedAt ? Date.parse(c.startedAt) : NaN;
  const tc: TestCase = { classname: `${r.group}.${r.id}`, name: checkLabel(r, c), timeMs: c.durationMs, ...(!Number.isNaN(startMs) && { startMs }) };
  const notes = [...(c.property ? [describeProperty(c.property)] : []), ...c.observations.map((o) => `observation: ${o}`)];
  const observed = notes.length ? notes.join('\n') : undefined;
  if (c.status === 'error') {
    // The harness broke, not the service: red in CI (the run exits 2), typed so nobody reads it as a verdict.
    tc.failure = { message: oneLine(c.message ?? 'harness error', 500), type: 'harness-error', body: failureBody(r, c) };
  } else if (c.status === 'not-testable' && c.notApplicable) {
    // Apart from "not testable": the rule does not concern the target (many reasons already start with the words).
    tc.skipped = `not applicable: ${(c.reason ?? 'no reason given').replace(/^not applicable:\s*/i, '')}`;
  } else if (c.status === 'not-testable') {
    tc.skipped = `not testable: ${c.reason ?? 'no reason given'}`;
  } else if (c.status === 'fail' && r.baseline === 'expected-failure') {
    // Listed in --baseline: the run passes on it, so CI must not show it red; the text keeps the evidence.
    tc.skipped = `known failure (baseline): ${oneLine(c.message ?? 'failed', 200)}`;
    tc.systemOut = failureBody(r, c);
  } else if (c.status === 'fail' && (r.level === 'MUST' || (results.strict && r.level === 'SHOULD'))) {
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
  // A selected row nothing verifies fails the run: a gate must not read silence as conformance.
  if (r.checks.length === 0) cases.push({ classname, name: 'no check', timeMs: 0, failure: { message: `no check verifies ${r.id}`, type: 'untested', body: `${r.id} was selected but no check verifies it; an untested row fails the run.` } });
  if (results.strict && r.status === 'not-testable' && failsRun(r, true)) {
    cases.push({ classname, name: 'exercised', timeMs: 0, failure: { message: `${r.id} (MUST) was not exercised: every check was not testable (strict)`, type: 'not-exercised', body: r.checks.map((c) => `${c.name}: ${c.reason ?? 'no reason given'}`).join('\n') } });
  }
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
    timeMs: wallTime(cases),
  };
}

/**
 * A suite's time: from its first check's start to its last one's end. Checks run side by side, so the sum of
 * their durations overstates it (35 s for a group in a 9 s run). Cases without a start (added rows, older
 * records) count their own time after that span.
 */
function wallTime(cases: TestCase[]): number {
  const timed = cases.filter((c) => c.startMs !== undefined);
  const untimed = cases.filter((c) => c.startMs === undefined).reduce((sum, c) => sum + c.timeMs, 0);
  if (timed.length === 0) return untimed;
  // A check verifying two rows appears twice: the span counts it once either way.
  const start = Math.min(...timed.map((c) => c.startMs!));
  const end = Math.max(...timed.map((c) => c.startMs! + c.timeMs));
  return end - start + untimed;
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
  ].map(([name, value]) => `      <property${attrs({ name, value: scrubKeyShapes(value!) })}/>`).join('\n');
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
  return scrubKeyShapes(`<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${root}>\n${suites.join('\n')}\n</testsuites>\n`);
}
