/**
 * capacity-junit.xml: one testcase per scenario. A scenario below --expect-rate is a failure (exit 1) with
 * expected and actual; one without a sound answer is an error (exit 2), never a pass or a skip.
 */
import { xmlAttr as attr, xmlEscape } from '../../../src/kit/escape.js';
import { scrubKeyShapes } from '../../../src/kit/scrub.js';
import type { CapacityReport } from '../capacity-result.js';
import { rateText, soundAnswer } from './capacity-word.js';

export const CAPACITY_JUNIT = 'capacity-junit.xml';

export function renderCapacityJunit(report: CapacityReport): string {
  let failures = 0;
  let errors = 0;
  const expect = report.options.expectRate;
  const cases = report.scenarios.map((s) => {
    const open = `    <testcase classname="capacity.${attr(s.scenario)}" name="${attr(`sustained rate within ${s.slo}`)}" time="${s.durationS.toFixed(3)}">`;
    const answered = soundAnswer(s.bound, s.sustained);
    if (!answered) {
      errors++;
      return `${open}\n      <error type="no-answer" message="${attr(s.summary)}">${xmlEscape(s.summary)}</error>\n    </testcase>`;
    }
    if (expect !== undefined && (s.sustained === null || s.sustained < expect)) {
      failures++;
      const message = `expected at least ${expect} req/s, actual ${rateText(s.sustained, s.bound)} (bound ${s.bound})`;
      return `${open}\n      <failure type="expect-rate" message="${attr(message)}">${xmlEscape(`${message}\n${s.summary}`)}</failure>\n    </testcase>`;
    }
    return `${open}\n      <system-out>${xmlEscape(`${rateText(s.sustained, s.bound)} (bound ${s.bound}): ${s.summary}`)}</system-out>\n    </testcase>`;
  });
  const n = report.scenarios.length;
  const seconds = report.durationS.toFixed(3);
  const suite = `  <testsuite name="capacity" tests="${n}" failures="${failures}" errors="${errors}" skipped="0" time="${seconds}" timestamp="${attr(report.startedAt.replace(/Z$/, ''))}">`;
  return scrubKeyShapes(`<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="capacity" tests="${n}" failures="${failures}" errors="${errors}" time="${seconds}">\n${suite}\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`);
}
