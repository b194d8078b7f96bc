import { describe, expect, it } from 'vitest';
import { compareScenario, compareWithBaseline, regressionPct } from '../../load/report/baseline.js';
import { renderLoadJunit } from '../../load/report/load-junit.js';
import { renderLoadMd } from '../../load/report/load-md.js';
import { renderLoadSection } from '../../load/report/load-html.js';
import { assembleLoadReport, verdictOf } from '../../load/report/load-report.js';
import { emptyErrorsByKind, type LoadReport, type ScenarioResult } from '../../load/report/load-results.js';
import { ThresholdError, evaluateThresholds, holds, parseThreshold, thresholdProblem } from '../../load/report/thresholds.js';
import { scenarioByName } from '../../load/scenarios.js';
import { expectValidLoad } from './load-schema.js';

function scenario(name: string, over: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    name,
    description: `${name} scenario`,
    engine: 'autocannon',
    startedAt: '2026-11-22T08:00:00.000Z',
    durationS: 5,
    requestsPerSecond: 1000,
    requests: 5000,
    requestsSent: 5004,
    latencyMs: { p50: 2, p90: 5, p99: 10, max: 30, mean: 3, samples: 5000 },
    latencyDistribution: [[0, 0.5], [50, 2], [100, 30]],
    autocannonLatencyMs: { p50: 2, p90: 5, p99: 10, max: 30 },
    errors: 0,
    errorsByKind: emptyErrorsByKind(),
    errorRate: 0,
    statusCodes: { 200: 5000 },
    byRequest: [{ name: 'tools/list', responses: 5000, errors: 0 }],
    throughput: [0, 1, 2, 3, 4].map((second) => ({ second, responses: 1000, errors: 0 })),
    ...over,
  };
}

const streamingScenario = (over: Partial<ScenarioResult> = {}) => scenario('schedule-preview', {
  requestsPerSecond: 30,
  requests: 150,
  latencyMs: { p50: 300, p90: 320, p99: 340, max: 350, mean: 305, samples: 150 },
  streaming: {
    responses: 150,
    progressEvents: { min: 4, mean: 4, max: 4 },
    timeToFirstEventMs: { p50: 80, p90: 90, p99: 100, max: 110, samples: 150 },
    timeToResultMs: { p50: 300, p90: 320, p99: 340, max: 350, samples: 150 },
  },
  ...over,
});

describe('threshold expressions', () => {
  it('parse metric, operator, value and unit, with an optional scenario', () => {
    expect(parseThreshold('p99<250')).toEqual({ metric: 'p99', op: '<', value: 250, expression: 'p99<250', origin: 'option' });
    expect(parseThreshold(' mix : p99 <= 250ms ')).toEqual({ scenario: 'mix', metric: 'p99', op: '<=', value: 250, expression: 'p99<=250ms', origin: 'option' });
    expect(parseThreshold('errors==0', 'default')).toMatchObject({ metric: 'errors', op: '==', value: 0, origin: 'default' });
    expect(parseThreshold('rps>=500')).toMatchObject({ metric: 'rps', op: '>=', value: 500 });
    expect(parseThreshold('error-rate<0.01')).toMatchObject({ metric: 'error-rate', value: 0.01 });
    expect(parseThreshold('error-rate<1%')).toMatchObject({ metric: 'error-rate', value: 0.01, expression: 'error-rate<1%' });
    expect(parseThreshold('regression<=20%')).toMatchObject({ metric: 'regression', op: '<=', value: 20 });
    expect(parseThreshold('schedule-preview:ttfe-p99<200')).toMatchObject({ scenario: 'schedule-preview', metric: 'ttfe-p99', value: 200 });
    expect(parseThreshold('ttr-max<1000ms')).toMatchObject({ metric: 'ttr-max', value: 1000 });
  });

  it('reject what they cannot mean', () => {
    for (const [text, message] of [
      ['p99<<250', /is not \[scenario:\]metric/],
      ['p99 250', /is not/],
      ['p99<-1', /is not/],
      ['p99<1e3', /is not/],
      ['latency<3', /unknown metric "latency"/],
      ['regression<=20', /regression is a percentage/],
      ['errors==0%', /errors takes no unit/],
      ['rps>10ms', /rps takes no unit/],
      ['p99<5%', /p99 is in milliseconds/],
      ['error-rate<2', /at most 1/],
      ['error-rate<5ms', /a fraction/],
    ] as const) {
      expect(() => parseThreshold(text), text).toThrow(ThresholdError);
      expect(() => parseThreshold(text), text).toThrow(message);
    }
  });

  it('compare with every operator', () => {
    expect([holds(1, '<', 2), holds(2, '<', 2), holds(2, '<=', 2), holds(3, '<=', 2)]).toEqual([true, false, true, false]);
    expect([holds(3, '>', 2), holds(2, '>', 2), holds(2, '>=', 2), holds(1, '>=', 2)]).toEqual([true, false, true, false]);
    expect([holds(0, '==', 0), holds(1, '==', 0)]).toEqual([true, false]);
  });

  it('are checked against the run before any traffic', () => {
    const run = [scenarioByName('tools-list')!, scenarioByName('schedule-preview')!];
    const ok = (t: string, baseline = false) => thresholdProblem([parseThreshold(t)], run, baseline);
    expect(ok('p99<250')).toBeUndefined();
    expect(ok('schedule-preview:ttfe-p99<250')).toBeUndefined();
    expect(ok('ttr-p50<500')).toBeUndefined();
    expect(ok('regression<=20%', true)).toBeUndefined();
    expect(ok('mix:p99<250')).toMatch(/names scenario "mix", which this run does not include \(tools-list, schedule-preview\)/);
    expect(ok('tools-list:ttfe-p99<250')).toMatch(/tools-list has no streaming request/);
    expect(thresholdProblem([parseThreshold('ttfe-p99<250')], [run[0]!], false)).toMatch(/none of the scenarios run \(tools-list\) has a streaming request/);
    expect(ok('regression<=20%')).toMatch(/give --baseline/);
  });
});

describe('threshold evaluation', () => {
  const clean = scenario('tools-list');
  const broken = scenario('mix', {
    errors: 12,
    errorsByKind: { ...emptyErrorsByKind(), 'http-5xx': 10, 'wrong-id': 2 },
    errorRate: 12 / 5000,
  });

  it('applies a plain expression to every scenario and a prefixed one to its scenario only', () => {
    const results = evaluateThresholds([parseThreshold('errors==0'), parseThreshold('mix:p99<5')], [clean, broken]);
    expect(results.map((r) => [r.scenario, r.expression, r.ok, r.actual])).toEqual([
      ['tools-list', 'errors==0', true, 0],
      ['mix', 'errors==0', false, 12],
      ['mix', 'p99<5', false, 10],
    ]);
    expect(results[1]!.note).toBe('http-5xx 10, wrong-id 2');
  });

  it('measures every metric, each able to fail', () => {
    const s = streamingScenario({ errors: 3, errorRate: 0.02, errorsByKind: { ...emptyErrorsByKind(), timeout: 3 } });
    const cases: Array<[string, number]> = [
      ['rps>=50', 30], ['requests>1000', 150], ['errors==0', 3], ['error-rate<1%', 0.02],
      ['p50<100', 300], ['p90<100', 320], ['p99<100', 340], ['max<100', 350], ['mean<100', 305],
      ['ttfe-p50<50', 80], ['ttfe-p90<50', 90], ['ttfe-p99<50', 100], ['ttfe-max<50', 110],
      ['ttr-p50<50', 300], ['ttr-p90<50', 320], ['ttr-p99<50', 340], ['ttr-max<50', 350],
    ];
    for (const [text, actual] of cases) {
      const [r] = evaluateThresholds([parseThreshold(text)], [s]);
      expect(r, text).toMatchObject({ actual, ok: false });
    }
    const [passes] = evaluateThresholds([parseThreshold('ttfe-p99<=100')], [s]);
    expect(passes!.ok).toBe(true);
  });

  it('skips non-streaming scenarios for a plain streaming metric, and fails when nothing was measured', () => {
    expect(evaluateThresholds([parseThreshold('ttfe-p99<500')], [clean, streamingScenario()]).map((r) => r.scenario)).toEqual(['schedule-preview']);
    const silent = streamingScenario({ streaming: { responses: 3, progressEvents: { min: 0, mean: 0, max: 0 }, timeToFirstEventMs: { p50: 0, p90: 0, p99: 0, max: 0, samples: 0 }, timeToResultMs: { p50: 0, p90: 0, p99: 0, max: 0, samples: 0 } } });
    const [r] = evaluateThresholds([parseThreshold('ttfe-p99<500')], [silent]);
    expect(r).toMatchObject({ actual: null, ok: false, note: 'no streaming response had an event' });
    const none = scenario('tools-list', { requests: 0, latencyMs: { p50: 0, p90: 0, p99: 0, max: 0, mean: 0, samples: 0 } });
    expect(evaluateThresholds([parseThreshold('p99<500'), parseThreshold('requests>0')], [none]).map((x) => [x.actual, x.ok])).toEqual([[null, false], [0, false]]);
  });
});

describe('baseline comparison', () => {
  it('gives 0 % against itself, a positive regression when slower, a negative one when faster', () => {
    const s = scenario('tools-list');
    expect(compareScenario(s, s)).toMatchObject({ requestsPerSecond: { changePct: 0 }, p99: { changePct: 0 }, regressionPct: 0 });
    const slower = scenario('tools-list', { requestsPerSecond: 900, latencyMs: { ...s.latencyMs, p99: 11 } });
    expect(compareScenario(slower, s)).toMatchObject({ requestsPerSecond: { baseline: 1000, current: 900, changePct: -10 }, p99: { changePct: 10 }, regressionPct: 10 });
    const worseLatency = scenario('tools-list', { requestsPerSecond: 1100, latencyMs: { ...s.latencyMs, p99: 15 } });
    expect(compareScenario(worseLatency, s).regressionPct).toBe(50);
    const faster = scenario('tools-list', { requestsPerSecond: 2000, latencyMs: { ...s.latencyMs, p99: 5 } });
    expect(compareScenario(faster, s).regressionPct).toBe(-50);
  });

  it('with rounds, compares the median of the rounds\' p99, not the median round\'s one sample', () => {
    const s = scenario('tools-list');
    const rounds = (p99s: number[]) => p99s.map((p99) => ({ requestsPerSecond: 1000, p99, errors: 0 }));
    // The median-throughput round happened to have the worst p99 (30): the rounds' median is 10.
    const noisy = scenario('tools-list', { latencyMs: { ...s.latencyMs, p99: 30 }, rounds: rounds([9, 30, 10]) });
    const base = scenario('tools-list', { rounds: rounds([10, 10, 11]) });
    expect(compareScenario(noisy, base)).toMatchObject({ p99: { baseline: 10, current: 10, changePct: 0 }, regressionPct: 0 });
  });

  it('has nothing to compare with a baseline of zeros', () => {
    expect(regressionPct({ baseline: 0, current: 5, changePct: null }, { baseline: 0, current: 1, changePct: null })).toBeNull();
  });

  it('gates on the regression, and fails a scenario the baseline does not have', () => {
    const base = assembleLoadReport({ tool: { name: 't', version: '0' }, target: { kind: 'embedded', baseUrl: 'http://127.0.0.1:1', description: 'x' }, settings: settings(), startedAt: '2026-11-22T07:00:00.000Z', durationMs: 1, scenarios: [scenario('tools-list', { requestsPerSecond: 2000 })], thresholds: [] });
    const comparison = compareWithBaseline([scenario('tools-list'), scenario('mix')], base, 'base.json');
    expect(comparison.missing).toEqual(['mix']);
    const results = evaluateThresholds([parseThreshold('regression<=20%')], [scenario('tools-list'), scenario('mix')], comparison);
    expect(results[0]).toMatchObject({ scenario: 'tools-list', actual: 50, ok: false, note: 'req/s −50.0 %, p99 ±0.0 % vs the baseline' });
    expect(results[1]).toMatchObject({ scenario: 'mix', actual: null, ok: false, note: 'the baseline has no such scenario' });
    expect(evaluateThresholds([parseThreshold('tools-list:regression<=60%')], [scenario('tools-list')], comparison)[0]!.ok).toBe(true);
  });
});

function settings(): LoadReport['settings'] {
  return { scenarios: ['tools-list', 'mix'], durationS: 5, connections: 10, rate: null, maxRequests: 2_000_000, timeoutS: 10, thresholds: ['errors==0'], baseline: null, streamingTiming: 'client events' };
}

describe('the report files of a failing run', () => {
  const scenarios = [scenario('tools-list'), scenario('mix', { errors: 2, errorRate: 0.0004, errorsByKind: { ...emptyErrorsByKind(), 'wrong-id': 2 } }), streamingScenario()];
  const thresholds = evaluateThresholds([parseThreshold('requests>0', 'builtin'), parseThreshold('errors==0'), parseThreshold('schedule-preview:ttfe-p99<50')], scenarios);
  const report = assembleLoadReport({
    tool: { name: 'mcp-canvas-harness', version: '0.1.0' },
    target: { kind: 'url', baseUrl: 'http://127.0.0.1:8080', description: 'url http://127.0.0.1:8080' },
    settings: settings(),
    startedAt: '2026-11-22T08:00:00.000Z',
    durationMs: 16_000,
    scenarios,
    thresholds,
  });

  it('is a valid load.json with a verdict naming what fails', () => {
    expectValidLoad(report);
    expect(report.exitCode).toBe(1);
    expect(report.verdict).toBe('FAIL: 2 of 7 thresholds fail: mix errors==0 (actual 2); schedule-preview ttfe-p99<50 (actual 100)');
    expect(verdictOf(thresholds.filter((t) => t.ok))).toEqual({ verdict: 'PASS: all 5 thresholds hold', exitCode: 0 });
  });

  it('writes one JUnit testcase per threshold, a failure with expected and actual', () => {
    const junit = renderLoadJunit(report);
    expect(junit.match(/<testsuite /g)).toHaveLength(1);
    expect(junit.match(/<testcase /g)).toHaveLength(7);
    expect(junit.match(/<failure /g)).toHaveLength(2);
    expect(junit).toContain('tests="7" failures="2"');
    expect(junit).toContain('<testcase classname="load.mix" name="errors==0" time="0">\n      <failure type="threshold" message="expected errors==0, actual 2">scenario: mix\nexpected: errors==0\nactual: 2\nnote: wrong-id 2\norigin: option</failure>');
    expect(junit).toContain('name="ttfe-p99&lt;50"');
  });

  it('marks thresholds ✅/❌ in load.md and names the error kinds', () => {
    const md = renderLoadMd(report);
    expect(md).toMatch(/^## Load: FAIL/);
    expect(md).toContain('- ❌ mix: `errors==0`: actual 2 (wrong-id 2)');
    expect(md).toContain('- ✅ tools-list: `errors==0`: actual 0');
    expect(md).toContain('- mix: wrong-id 2');
    expect(md).toContain('| schedule-preview | 150 | 4 / 4 | 80 / 90 / 100 / 110 | 300 / 320 / 340 / 350 |');
  });

  it('draws the plots in an embeddable HTML fragment', () => {
    const html = renderLoadSection(report);
    expect(html.startsWith('<section class="load-report">')).toBe(true);
    expect(html.match(/<svg /g)).toHaveLength(3 * 2 + 1); // latency and throughput per scenario, errors for mix
    expect(html).toContain('mix: errors by kind');
    expect(html).toContain('No errors.');
    expect(html).not.toMatch(/<script/);
  });
});
