/**
 * handleSummary: k6's end-of-test data turned into the run's files, in SUMMARY_DIR:
 *   k6-summary.json  the raw data k6 hands over
 *   k6-junit.xml     one testcase per threshold, a failure on each crossed one
 *   load-k6.json     the per-scenario shape of the autocannon runner's load.json (engine k6)
 * and a short text summary on stdout (jslib's textSummary lives on jslib.k6.io, which the scripts cannot
 * count on reaching). The API key is in none of them: k6's summary data holds no request headers.
 */
import { ERROR_KINDS } from '../reply-check.ts';
import { scenarioByName } from '../scenarios.ts';
import type { Inputs } from './inputs.ts';

/** The parts of k6's summary data used here (https://grafana.com/docs/k6/latest/results-output/end-of-test/custom-summary/). */
export interface SummaryData {
  state?: { testRunDurationMs?: number };
  metrics: Record<string, { type: string; contains?: string; values: Record<string, number>; thresholds?: Record<string, { ok: boolean }> }>;
}

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Percentiles with the mean and the number of samples they come from (as load.json's latencyMs). */
export interface LatencySummary extends Percentiles {
  mean: number;
  samples: number;
}

/**
 * One scenario, in the fields load.json (the autocannon runner, load/report/load-results.ts) uses for the
 * same things, plus the open model's own: offered rate and dropped iterations.
 */
export interface K6ScenarioReport {
  name: string;
  engine: 'k6';
  /** Offered arrival rate (the open model's input). */
  offeredRate: number;
  /** Achieved rate: responses over the whole test run. */
  requestsPerSecond: number;
  requests: number;
  /** Iterations k6 could not start in time (no free VU): the offered rate was not sent. */
  droppedIterations: number;
  latencyMs: LatencySummary;
  /** Replies that failed the check, transport errors included: the sum of errorsByKind. */
  errors: number;
  errorsByKind: Record<string, number>;
  /** Per request type (by k6's `name` tag). */
  byRequest: { name: string; responses: number; errors: number; latencyMs: LatencySummary }[];
  streaming?: {
    /** Responses that were streams (text/event-stream): the ones counted and timed below. */
    responses: number;
    progressEvents: { min: number; mean: number; max: number };
    /** k6's `timings.waiting` (first response byte): see timeToFirstEventSource. */
    timeToFirstEventMs: Percentiles & { samples: number };
    timeToFirstEventSource: string;
    timeToResultMs: Percentiles & { samples: number };
  };
}

export interface K6LoadReport {
  engine: 'k6';
  target: { kind: string; baseUrl: string };
  /** Distributed runs: this runner's execution segment; its numbers are its share of the test only. */
  executionSegment?: string;
  durationS: number;
  testRunDurationMs: number;
  scenarios: K6ScenarioReport[];
  /**
   * Every k6 threshold; `scenario` when the metric is one scenario's; `noData`: the metric has no samples,
   * so k6 passed the threshold without judging anything.
   */
  thresholds: { expression: string; metric: string; scenario?: string; ok: boolean; actual?: number; noData?: true }[];
}

const TTFE_SOURCE =
  "k6's timings.waiting: time to the first response byte. k6 reads an SSE reply whole; a server that flushes the " +
  'headers before its first event (the reference does) makes this the time to the headers, a lower bound of the time to the first event';

const round = (n: number | undefined, digits = 3): number => {
  const f = 10 ** digits;
  return Math.round((n ?? 0) * f) / f;
};

function percentiles(values: Record<string, number> | undefined): Percentiles {
  return { p50: round(values?.['p(50)']), p90: round(values?.['p(90)']), p99: round(values?.['p(99)']), max: round(values?.max) };
}

function latency(values: Record<string, number> | undefined): LatencySummary {
  return { ...percentiles(values), mean: round(values?.avg), samples: values?.count ?? 0 };
}

/** The value a threshold expression tests, e.g. `rate==1` → values.rate, `p(99)<5` → values['p(99)']. */
function thresholdActual(expression: string, values: Record<string, number>): number | undefined {
  const m = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)\s*[<>=!]/.exec(expression);
  if (!m) return undefined;
  const key = m[1] === 'p(50)' && values['p(50)'] === undefined ? 'med' : m[1]!;
  return values[key];
}

/** A k6 scenario as it ran (from k6's consolidated options: see traffic.ts ranScenarios). */
export interface RanScenario {
  name: string;
  offeredRate: number;
  durationS: number;
}

export function loadReport(data: SummaryData, inputs: Inputs, ran: RanScenario[], executionSegment?: string): K6LoadReport {
  const metric = (name: string) => data.metrics[name]?.values;
  const longest = Math.max(0, ...ran.map((r) => r.durationS));
  const seconds = (data.state?.testRunDurationMs || longest * 1000 || 1) / 1000;
  const scenarios = ran.map(({ name, offeredRate }): K6ScenarioReport => {
    const scenario = scenarioByName(name) ?? { name, description: '', requests: [] };
    const s = `scenario:${name}`;
    const requests = metric(`http_reqs{${s}}`)?.count ?? 0;
    const errorsByKind: Record<string, number> = {};
    for (const kind of ERROR_KINDS) {
      const n = metric(`reply_errors{${s},kind:${kind}}`)?.count ?? 0;
      if (n > 0) errorsByKind[kind] = n;
    }
    const report: K6ScenarioReport = {
      name,
      engine: 'k6',
      offeredRate: round(offeredRate),
      requestsPerSecond: round(requests / seconds, 1),
      requests,
      droppedIterations: metric(`dropped_iterations{${s}}`)?.count ?? 0,
      latencyMs: latency(metric(`http_req_duration{${s}}`)),
      errors: Object.values(errorsByKind).reduce((a, b) => a + b, 0),
      errorsByKind,
      byRequest: scenario.requests.map((r) => {
        const values = metric(`http_req_duration{${s},name:${r.name}}`);
        return { name: r.name, responses: values?.count ?? 0, errors: metric(`reply_errors{${s},name:${r.name}}`)?.count ?? 0, latencyMs: latency(values) };
      }),
    };
    if (scenario.requests.some((r) => r.streaming)) {
      const progress = metric(`stream_progress_events{${s}}`);
      const withSamples = (values: Record<string, number> | undefined) => ({ ...percentiles(values), samples: values?.count ?? 0 });
      report.streaming = {
        responses: progress?.count ?? 0,
        progressEvents: { min: round(progress?.min), mean: round(progress?.avg), max: round(progress?.max) },
        timeToFirstEventMs: withSamples(metric(`stream_time_to_first_byte{${s}}`)),
        timeToFirstEventSource: TTFE_SOURCE,
        timeToResultMs: withSamples(metric(`stream_time_to_result{${s}}`)),
      };
    }
    return report;
  });
  const thresholds: K6LoadReport['thresholds'] = [];
  for (const [name, m] of Object.entries(data.metrics)) {
    for (const [expression, result] of Object.entries(m.thresholds ?? {})) {
      const actual = thresholdActual(expression, m.values);
      const empty = (m.type === 'rate' && (m.values.passes ?? 0) + (m.values.fails ?? 0) === 0) || (m.type === 'trend' && m.values.count === 0);
      const scenario = /[{,]scenario:([^,}]+)/.exec(name)?.[1];
      thresholds.push({ expression: `${name}: ${expression}`, metric: name, ...(scenario && { scenario }), ok: result.ok, ...(actual !== undefined && !empty && { actual: round(actual) }), ...(empty && { noData: true as const }) });
    }
  }
  thresholds.sort((a, b) => a.expression.localeCompare(b.expression));
  return {
    engine: 'k6',
    target: { kind: inputs.targetKind, baseUrl: inputs.baseUrl },
    ...(executionSegment && { executionSegment }),
    durationS: longest,
    testRunDurationMs: Math.round(data.state?.testRunDurationMs ?? 0),
    scenarios,
    thresholds,
  };
}

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

/** JUnit XML: one testcase per threshold, a `<failure>` on each crossed one (what CI shows as a test). */
export function junitXml(report: K6LoadReport): string {
  const failures = report.thresholds.filter((t) => !t.ok).length;
  const seconds = (report.testRunDurationMs / 1000).toFixed(3);
  const cases = report.thresholds.map((t) => {
    const open = `    <testcase classname="k6.thresholds" name="${xmlEscape(t.expression)}" time="0">`;
    if (t.ok && t.noData) return `${open}\n      <skipped message="no data: k6 passes a threshold on a metric without samples"/>\n    </testcase>`;
    if (t.ok) return `${open}</testcase>`;
    const message = `threshold crossed: ${t.expression}${t.actual !== undefined ? ` (actual ${t.actual})` : ''}`;
    return `${open}\n      <failure message="${xmlEscape(message)}" type="threshold">${xmlEscape(message)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="k6" tests="${report.thresholds.length}" failures="${failures}" time="${seconds}">`,
    `  <testsuite name="k6 thresholds" tests="${report.thresholds.length}" failures="${failures}" errors="0" time="${seconds}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ms`;

/** The end-of-test text on stdout: per scenario rate, latency, errors by kind; then each threshold. */
export function textSummary(report: K6LoadReport): string {
  const segment = report.executionSegment ? `, execution segment ${report.executionSegment} (this runner's share only)` : '';
  const lines = ['', `k6 load: ${report.target.kind} ${report.target.baseUrl}, ${report.durationS} s per scenario${segment}`];
  for (const s of report.scenarios) {
    const l = s.latencyMs;
    lines.push(`  ${s.name}: ${s.requests} requests, ${s.requestsPerSecond} req/s (offered ${s.offeredRate}/s, ${s.droppedIterations} dropped)`);
    lines.push(`    latency p50 ${ms(l.p50)}, p90 ${ms(l.p90)}, p99 ${ms(l.p99)}, max ${ms(l.max)}`);
    const kinds = Object.entries(s.errorsByKind).map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`    errors ${s.errors}${kinds ? ` (${kinds})` : ''}`);
    if (s.byRequest.length > 1) for (const r of s.byRequest) lines.push(`    ${r.name}: ${r.responses} responses, ${r.errors} errors, p99 ${ms(r.latencyMs.p99)}`);
    if (s.streaming) {
      const st = s.streaming;
      lines.push(`    streaming: first byte p50 ${ms(st.timeToFirstEventMs.p50)} p99 ${ms(st.timeToFirstEventMs.p99)}; result p50 ${ms(st.timeToResultMs.p50)} p99 ${ms(st.timeToResultMs.p99)}; progress events per reply ${st.progressEvents.min}-${st.progressEvents.max} (mean ${st.progressEvents.mean})`);
    }
  }
  lines.push('  thresholds:');
  for (const t of report.thresholds) {
    lines.push(`    ${t.ok ? 'ok  ' : 'FAIL'} ${t.expression}${t.actual !== undefined ? ` (actual ${t.actual})` : ''}${t.noData ? ' (no data: nothing judged)' : ''}`);
  }
  const failed = report.thresholds.filter((t) => !t.ok).length;
  const sent = report.scenarios.reduce((sum, s) => sum + s.requests, 0);
  lines.push(failed ? `  ${failed} threshold(s) crossed: k6 exits 99` : sent === 0 ? '  no request was sent: the thresholds judged nothing' : '  all thresholds passed', '');
  return lines.join('\n');
}

/** What handleSummary returns: file path (or 'stdout') → content. */
export function summaryOutputs(data: SummaryData, inputs: Inputs, ran: RanScenario[], executionSegment?: string): Record<string, string> {
  const report = loadReport(data, inputs, ran, executionSegment);
  const at = (file: string) => (inputs.summaryDir ? `${inputs.summaryDir}/${file}` : file);
  return {
    stdout: textSummary(report),
    [at('k6-summary.json')]: JSON.stringify(data, null, 2),
    [at('k6-junit.xml')]: junitXml(report),
    [at('load-k6.json')]: `${JSON.stringify(report, null, 2)}\n`,
  };
}
