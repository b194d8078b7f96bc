/**
 * What the k6 scripts send and measure: one open-model arrival-rate k6 scenario per selected load scenario,
 * each iteration one stateless POST from the scenario's weighted cycle, judged by the shared reply check.
 */
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter, Rate, Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { checkReply, ERROR_KINDS, type ErrorKind } from '../reply-check.ts';
import { MCP_PATH, requestHeaders, SCENARIOS, weightedCycle, type LoadRequest } from '../scenarios.ts';
import { scenarioVus, type Inputs } from './inputs.ts';
import { sseMessages } from './sse.ts';
import type { RanScenario } from './summary.ts';

/** Every reply that failed the check, tagged by `kind` (errors by kind) and by request `name`. */
const replyErrors = new Counter('reply_errors');
/** The share of replies that passed the check: the main gate. */
const replyOk = new Rate('reply_ok');
/** Streaming requests: progress notifications before the result, per reply. */
const progressEvents = new Trend('stream_progress_events');
/**
 * Streaming requests: `timings.waiting`, the time to the first byte of the response. k6 reads an SSE reply
 * whole, so it sees no single event; and the reference flushes the SSE headers before its first event,
 * so against it this is the time to the headers, a lower bound of the time to the first event.
 */
const timeToFirstByte = new Trend('stream_time_to_first_byte', true);
/** Streaming requests: `timings.duration`, request sent to the end of the stream (the final result). */
const timeToResult = new Trend('stream_time_to_result', true);

/** k6's error code for a request that hit its timeout (https://grafana.com/docs/k6/latest/javascript-api/error-codes/). */
const K6_REQUEST_TIMEOUT = 1050;

/** The thresholds every run gates on, metric by metric (k6 syntax). Per-scenario latency gates come on top. */
function gateThresholds(inputs: Inputs): Record<string, string[]> {
  return inputs.smoke
    ? { reply_ok: ['rate==1'], http_req_failed: ['rate==0'] }
    : { reply_ok: ['rate>0.99'], http_req_failed: ['rate<0.01'] };
}

/**
 * k6 options. Sub-metrics only reach handleSummary when a threshold names them, so every per-scenario
 * number the report needs gets a threshold: a real gate where there is one (p99), an empty list (no gate)
 * elsewhere.
 */
export function buildOptions(inputs: Inputs): Options {
  const thresholds: Record<string, string[]> = gateThresholds(inputs);
  const scenarios: NonNullable<Options['scenarios']> = {};
  // constant-arrival-rate takes an integer rate per timeUnit: a fractional rate is given per 1000 s.
  const whole = Number.isInteger(inputs.ratePerScenario);
  for (const scenario of inputs.scenarios) {
    const s = `scenario:${scenario.name}`;
    const { vus, maxVus } = scenarioVus(inputs, scenario);
    scenarios[scenario.name] = {
      executor: 'constant-arrival-rate',
      rate: whole ? inputs.ratePerScenario : Math.round(inputs.ratePerScenario * 1000),
      timeUnit: whole ? '1s' : '1000s',
      duration: `${inputs.durationS}s`,
      preAllocatedVUs: vus,
      maxVUs: maxVus,
      gracefulStop: `${Math.ceil(inputs.timeoutMs / 1000) + 1}s`,
    };
    thresholds[`http_reqs{${s}}`] = [];
    thresholds[`http_req_duration{${s}}`] = [`p(99)<${inputs.p99Ms}`];
    thresholds[`dropped_iterations{${s}}`] = [];
    thresholds[`reply_ok{${s}}`] = [];
    for (const kind of ERROR_KINDS) thresholds[`reply_errors{${s},kind:${kind}}`] = [];
    for (const r of scenario.requests) {
      thresholds[`http_req_duration{${s},name:${r.name}}`] = [];
      thresholds[`reply_errors{${s},name:${r.name}}`] = [];
    }
    if (scenario.requests.some((r) => r.streaming)) {
      for (const metric of ['stream_progress_events', 'stream_time_to_first_byte', 'stream_time_to_result']) thresholds[`${metric}{${s}}`] = [];
    }
  }
  return {
    scenarios,
    thresholds,
    // k6 follows up to 10 redirects by default, resending the body and the key to wherever a Location points
    // (https://k6.io/docs/using-k6/options/ "Max Redirects"): none is followed; a 3xx fails the reply check.
    maxRedirects: 0,
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(99)', 'count'],
  };
}

export interface Traffic {
  url: string;
  headers: Record<string, string>;
  /**
   * Per k6 scenario name: the weighted cycle and each request's body, serialized once. Every scenario, not
   * only the selected ones: a k6 archive keeps the scenarios it was made with, whatever LOAD_SCENARIO says
   * when it runs.
   */
  cycles: Record<string, { request: LoadRequest; body: string }[]>;
}

export function prepareTraffic(inputs: Inputs): Traffic {
  const cycles: Traffic['cycles'] = {};
  for (const scenario of SCENARIOS) {
    cycles[scenario.name] = weightedCycle(scenario).map((request) => ({ request, body: JSON.stringify(request.body) }));
  }
  return { url: `${inputs.baseUrl}${MCP_PATH}`, headers: requestHeaders(inputs.apiKey), cycles };
}

/**
 * One iteration: the next request of this scenario's weighted cycle, sent, judged and counted. The position
 * counts this instance's iterations, not the whole test's: in a distributed run the test's iterations are
 * dealt out to the runners in strides, and a stride sharing a factor with the cycle (10 for the mix) would
 * leave a runner without some request types. So every runner sends the whole mix.
 */
export function sendNext(traffic: Traffic, inputs: Inputs): void {
  const cycle = traffic.cycles[exec.scenario.name]!;
  const { request, body } = cycle[exec.scenario.iterationInInstance % cycle.length]!;
  const res = http.post(traffic.url, body, { headers: traffic.headers, tags: { name: request.name }, timeout: inputs.timeoutMs });
  let kind: ErrorKind | undefined;
  let stream: { progress: number } | undefined;
  if (res.status === 0) {
    kind = res.error_code === K6_REQUEST_TIMEOUT ? 'timeout' : 'connection';
  } else {
    const contentType = res.headers['Content-Type'] ?? '';
    const text = typeof res.body === 'string' ? res.body : '';
    const sse = /^text\/event-stream\b/i.test(contentType);
    let messages: unknown[] | undefined;
    if (sse) {
      messages = sseMessages(text);
    } else {
      try {
        messages = [JSON.parse(text)];
      } catch {
        messages = undefined;
      }
    }
    const verdict = checkReply(request, res.status, contentType, messages);
    kind = verdict.kind;
    if (sse) stream = { progress: verdict.progress };
  }
  const tags = { name: request.name };
  replyOk.add(kind === undefined, tags);
  if (kind !== undefined) replyErrors.add(1, { ...tags, kind });
  // Stream numbers come from replies that were streams (a 429 or a timeout is no stream to time).
  if (request.streaming && stream) {
    progressEvents.add(stream.progress, tags);
    timeToFirstByte.add(res.timings.waiting, tags);
    timeToResult.add(res.timings.duration, tags);
  }
}

/** Seconds of a k6 duration string (`10s`, `1m30s`, `250ms`). */
function seconds(duration: unknown): number {
  let total = 0;
  for (const m of String(duration ?? '').matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return total;
}

/** A point of an execution segment: `1/4`, `0.25` or `25%`. */
function segmentPoint(text: string): number {
  const [n, d] = text.split('/');
  if (d !== undefined) return Number(n) / Number(d);
  return text.endsWith('%') ? Number(text.slice(0, -1)) / 100 : Number(text);
}

/**
 * This instance's execution segment (`1/4:2/4`) in a distributed run, where each runner sends its share of
 * the arrival rate; undefined when it runs the whole test.
 */
export function executionSegment(): { segment: string; fraction: number } | undefined {
  const segment = exec.test.options.executionSegment as unknown;
  if (typeof segment !== 'string' || segment === '') return undefined;
  const [from, to] = segment.split(':');
  const fraction = segmentPoint(to ?? '1') - segmentPoint(from ?? '0');
  return Number.isFinite(fraction) && fraction > 0 ? { segment, fraction } : undefined;
}

/**
 * The scenarios k6 actually runs (its consolidated options), in the catalogue's order, with the rate this
 * instance offers (its execution segment's share). They differ from
 * this run's LOAD_* inputs when the script runs from an archive: `k6 archive` stores the options it computed,
 * and `k6 run archive.tar` keeps them.
 */
export function ranScenarios(): RanScenario[] {
  const configured = (exec.test.options.scenarios ?? {}) as Record<string, { rate?: number; timeUnit?: string; duration?: string }>;
  const order = (name: string) => SCENARIOS.findIndex((s) => s.name === name);
  const share = executionSegment()?.fraction ?? 1;
  return Object.entries(configured)
    .map(([name, c]) => ({ name, offeredRate: ((c.rate ?? 0) / (seconds(c.timeUnit ?? '1s') || 1)) * share, durationS: seconds(c.duration) }))
    .sort((a, b) => order(a.name) - order(b.name));
}

/** setup(): says so when the archived load shape overrides this run's LOAD_* inputs. */
export function warnIfArchivedShapeDiffers(inputs: Inputs): void {
  const share = executionSegment()?.fraction ?? 1;
  const wanted = inputs.scenarios.map((s) => `${s.name} ${inputs.ratePerScenario * share}/s ${inputs.durationS}s`).join(', ');
  const ran = ranScenarios().map((s) => `${s.name} ${s.offeredRate}/s ${s.durationS}s`).join(', ');
  if (wanted !== ran) console.warn(`the k6 options in force (${ran}) differ from LOAD_* (${wanted}): an archive keeps the load shape it was made with; give LOAD_* to k6 archive with -e`);
}
