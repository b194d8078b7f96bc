import { describe, expect, it } from 'vitest';
import { readInputs, scenarioVus } from '../../load/k6/inputs.ts';
import { sseEventData, sseMessages } from '../../load/k6/sse.ts';
import { junitXml, loadReport, type SummaryData } from '../../load/k6/summary.ts';

// The k6 scripts' plain modules, run under Node: the SSE splitter, the inputs, and the summary writers.

describe('k6 SSE splitter', () => {
  it('splits a finished stream into the data of each event, whatever the line ends', () => {
    const body = 'event: message\ndata: {"a":1}\n\n: comment\r\nid: 7\r\ndata:{"b":2}\r\n\r\nretry: 10\rdata: x\rdata: y\r\r';
    expect(sseEventData(body)).toEqual(['{"a":1}', '{"b":2}', 'x\ny']);
  });

  it('drops an event without its closing blank line, and events with empty data', () => {
    expect(sseEventData('data: 1\n\ndata:\n\ndata: 2\n')).toEqual(['1']);
    expect(sseEventData('\uFEFFdata: 3\n\n')).toEqual(['3']);
  });

  it('parses each data as JSON, or gives undefined when one is not JSON', () => {
    expect(sseMessages('data: {"id":1}\n\ndata: [2]\n\n')).toEqual([{ id: 1 }, [2]]);
    expect(sseMessages('data: {"id":1}\n\ndata: {oops\n\n')).toBeUndefined();
    expect(sseMessages('')).toEqual([]);
  });
});

describe('k6 inputs', () => {
  it('reads the smoke selection and sizes VUs for streaming', () => {
    const inputs = readInputs({ LOAD_SCENARIO: 'smoke' });
    expect(inputs.scenarios.map((s) => s.name)).toEqual(['tools-list', 'schedule-preview']);
    expect([inputs.ratePerScenario, inputs.durationS]).toEqual([10, 3]);
    const [list, preview] = inputs.scenarios.map((s) => scenarioVus(inputs, s));
    expect(preview!.vus).toBeGreaterThan(list!.vus);
  });

  it('rejects unknown scenarios and bad numbers, naming the variable', () => {
    expect(() => readInputs({ LOAD_SCENARIO: 'nope' })).toThrow(/LOAD_SCENARIO: unknown scenario "nope"/);
    expect(() => readInputs({ LOAD_RATE: '-1' })).toThrow(/LOAD_RATE/);
    expect(() => readInputs({ LOAD_VUS: '5', LOAD_MAX_VUS: '2' })).toThrow(/LOAD_MAX_VUS/);
  });
});

describe('k6 summary', () => {
  const inputs = readInputs({ LOAD_SCENARIO: 'schedule-preview', MCP_BASE_URL: 'http://127.0.0.1:1' });
  const trend = (p99: number) => ({ type: 'trend', contains: 'time', values: { count: 10, 'p(50)': 1, 'p(90)': 2, 'p(99)': p99, max: 9, avg: 1, min: 0 } });
  const data: SummaryData = {
    state: { testRunDurationMs: 2000 },
    metrics: {
      reply_ok: { type: 'rate', values: { rate: 0.8, passes: 8, fails: 2 }, thresholds: { 'rate==1': { ok: false } } },
      'http_req_duration{scenario:schedule-preview}': { ...trend(5), thresholds: { 'p(99)<2000': { ok: true } } },
      'http_reqs{scenario:schedule-preview}': { type: 'counter', values: { count: 10, rate: 5 } },
      'reply_errors{scenario:schedule-preview,kind:stream-no-result}': { type: 'counter', values: { count: 2 } },
      'stream_progress_events{scenario:schedule-preview}': { type: 'trend', values: { count: 10, min: 0, avg: 3.2, max: 4 } },
      'stream_time_to_result{scenario:schedule-preview}': trend(300),
      http_req_failed: { type: 'rate', values: { rate: 0, passes: 0, fails: 0 }, thresholds: { 'rate<0.01': { ok: true } } },
    },
  };
  const report = loadReport(data, inputs, [{ name: 'schedule-preview', offeredRate: 5, durationS: 2 }]);

  it('reports each scenario in load.json shape, with errors by kind and streaming numbers', () => {
    const s = report.scenarios[0]!;
    expect(s).toMatchObject({ name: 'schedule-preview', requests: 10, requestsPerSecond: 5, errors: 2, errorsByKind: { 'stream-no-result': 2 } });
    expect(s.latencyMs).toEqual({ p50: 1, p90: 2, p99: 5, max: 9, mean: 1, samples: 10 });
    expect(s.byRequest).toEqual([{ name: 'schedule.preview', responses: 0, errors: 0, latencyMs: { p50: 0, p90: 0, p99: 0, max: 0, mean: 0, samples: 0 } }]);
    expect(s.streaming).toMatchObject({ responses: 10, progressEvents: { min: 0, mean: 3.2, max: 4 }, timeToResultMs: { p99: 300, samples: 10 } });
    expect(report.thresholds[0]).toMatchObject({ scenario: 'schedule-preview', metric: 'http_req_duration{scenario:schedule-preview}' });
  });

  it('writes one JUnit testcase per threshold: a failure when crossed, skipped when it had no data', () => {
    expect(report.thresholds.map((t) => [t.expression, t.ok, t.actual])).toEqual([
      ['http_req_duration{scenario:schedule-preview}: p(99)<2000', true, 5],
      ['http_req_failed: rate<0.01', true, undefined],
      ['reply_ok: rate==1', false, 0.8],
    ]);
    const xml = junitXml(report);
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml).toMatch(/tests="3" failures="1"/);
    expect(xml).toMatch(/name="reply_ok: rate==1"[^>]*>\s*<failure message="threshold crossed: reply_ok: rate==1 \(actual 0.8\)"/);
    expect(xml).toMatch(/name="http_req_duration\{scenario:schedule-preview\}: p\(99\)&lt;2000" time="0"><\/testcase>/);
    expect(xml).toMatch(/name="http_req_failed: rate&lt;0.01"[^>]*>\s*<skipped /);
  });
});
