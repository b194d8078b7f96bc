/**
 * load-junit.xml: one testsuite, one testcase per threshold on each scenario (classname `load.<scenario>`),
 * a failure with the expected expression and the measured value. Failures count exactly the thresholds
 * that make the exit code 1.
 */
import { xmlAttr as attr, xmlEscape } from '../../src/kit/escape.js';
import { fmt } from '../../src/kit/numbers.js';
import { scrubKeyShapes } from '../../src/kit/scrub.js';
import type { LoadReport } from './load-results.js';

export const LOAD_JUNIT = 'load-junit.xml';

export function renderLoadJunit(load: LoadReport): string {
  const failures = load.thresholds.filter((t) => !t.ok).length;
  const seconds = (load.durationMs / 1000).toFixed(3);
  const cases = load.thresholds.map((t) => {
    const actual = t.actual === null ? 'not measured' : fmt(t.actual, 6);
    const open = `    <testcase classname="${attr(`load.${t.scenario}`)}" name="${attr(t.expression)}" time="0">`;
    if (t.ok) return `${open}\n      <system-out>${xmlEscape(`actual ${actual}${t.note ? ` (${t.note})` : ''}`)}</system-out>\n    </testcase>`;
    const message = `expected ${t.expression}, actual ${actual}`;
    const body = `scenario: ${t.scenario}\nexpected: ${t.expression}\nactual: ${actual}${t.note ? `\nnote: ${t.note}` : ''}\norigin: ${t.origin}`;
    return `${open}\n      <failure type="threshold" message="${attr(message)}">${xmlEscape(body)}</failure>\n    </testcase>`;
  });
  const suite = `  <testsuite name="load thresholds" tests="${load.thresholds.length}" failures="${failures}" errors="0" skipped="0" time="${seconds}" timestamp="${attr(load.startedAt.replace(/Z$/, ''))}">`;
  return scrubKeyShapes(`<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="npm run load" tests="${load.thresholds.length}" failures="${failures}" errors="0" time="${seconds}">\n${suite}\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`);
}
