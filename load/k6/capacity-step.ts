/**
 * One step of the capacity search on k6 (load/capacity/k6-driver.ts runs it once per step; k6-operator or
 * Grafana Cloud k6 can run it the same way): a `constant-arrival-rate` scenario at CAP_RATE for the warm-up
 * and the window, each iteration one stateless POST from the scenario's weighted cycle, judged by the shared
 * reply check. The search judges a step on its per-request samples, not on k6's aggregates (a window's
 * exceedances must be counted exactly and windows merged): every request emits one `cap_latency` sample
 * whose metadata `s` carries what the judgement needs, and a `cap_started` row as it starts (so that one the
 * graceful stop interrupts, which reports nothing, is still known), taken from k6's per-request output
 * (`--out csv=<file>`): handleSummary sees only aggregates.
 *
 * Latency is measured from the PLANNED send time: constant-arrival-rate starts iteration n of the test at
 * scenario start + n / rate when a VU is free, and drops it when none is (`dropped_iterations`: a request
 * never sent, which makes the step invalid unless the SLO already broke). The planned time is computed from
 * `exec.scenario.iterationInTest`, so a VU that starts late shows as latency, not as a missing sample.
 *
 *   b = "<iterationInTest> <start>"                                     (cap_started)
 *   s = "<iterationInTest> <start> <end> <service> <outcome> <position>"  (cap_latency)
 *       start, end: ms on k6's test-run clock (exec.instance.currentTestRunDuration), iteration start and reply;
 *       service: timings.duration; outcome: ok or an ErrorKind; position: the request's in the weighted cycle
 *   o = the scenario's start on the test-run clock, ms, from its whole Unix ms (iteration 0 only)
 *
 * The value of `cap_latency` is this script's own estimate of the latency from the planned send, enough for
 * k6 thresholds and the cloud's charts: its origin is known to about a millisecond (k6 gives the scenario's
 * start in whole Unix ms), and k6 numbers only the iterations it starts, so after a dropped one the estimate
 * runs late by a tick per drop. The driver recomputes it from the rows (load/capacity/k6-step-output.ts).
 * In a distributed run (k6-operator's execution segments) iterationInTest is the test-wide number, so each
 * runner's samples carry the whole test's schedule on its own clock, and capacity-step.json says its share.
 * Streaming replies: k6 reads a reply whole, so the time to the first progress notification (TTFP) is not
 * observable here; the time to the final result is the whole reply.
 *
 * Plain k6: it imports only k6 modules and the shared plain modules, and reads its inputs from the
 * environment (a bad value stops it at init, a missing target or key in setup(); the key is never printed):
 *
 *   MCP_BASE_URL, MCP_API_KEY   the service, and a live key (required)
 *   LOAD_SCENARIO               one scenario name (default tools-list)
 *   CAP_RATE                    offered rate, req/s (required; fractions allowed)
 *   CAP_WARMUP_S, CAP_WINDOW_S  warm-up and measured window, s (default 1 and 2)
 *   CAP_VUS                     VUs, all pre-allocated (default: rate x 0.25 s, at least 10)
 *   CAP_TIMEOUT_MS              per-request timeout (default 10000)
 *   CAP_GRACEFUL_STOP_MS        how long requests in flight at the end may finish (default CAP_TIMEOUT_MS);
 *                               one still running then is interrupted and emits no sample
 *   SUMMARY_DIR                 where handleSummary writes capacity-step.json
 *
 *   MCP_BASE_URL=... MCP_API_KEY=... CAP_RATE=200 k6 run --out csv=samples.csv load/k6/capacity-step.ts
 */
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { checkReply, type ErrorKind } from '../reply-check.ts';
import { MCP_PATH, requestHeaders, scenarioByName, SCENARIOS, weightedCycle } from '../scenarios.ts';
import { sseMessages } from './sse.ts';

type Env = Record<string, string | undefined>;

function number(env: Env, name: string, fallback: number | undefined, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    if (fallback === undefined) throw new Error(`${name} is required`);
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number of at least ${min} (got "${raw}")`);
  return value;
}

const scenarioName = __ENV.LOAD_SCENARIO || 'tools-list';
const scenario = scenarioByName(scenarioName);
if (!scenario) throw new Error(`LOAD_SCENARIO: unknown scenario "${scenarioName}" (known: ${SCENARIOS.map((s) => s.name).join(', ')})`);
const rate = number(__ENV, 'CAP_RATE', undefined, 0.001);
const warmupMs = number(__ENV, 'CAP_WARMUP_S', 1, 0) * 1000;
const windowMs = number(__ENV, 'CAP_WINDOW_S', 2, 0.001) * 1000;
const vus = Math.ceil(number(__ENV, 'CAP_VUS', Math.max(10, Math.ceil(rate * 0.25)), 1));
const timeoutMs = number(__ENV, 'CAP_TIMEOUT_MS', 10_000, 1);
const gracefulStopMs = number(__ENV, 'CAP_GRACEFUL_STOP_MS', timeoutMs, 0);
const summaryDir = (__ENV.SUMMARY_DIR ?? '').replace(/\/$/, '');

// constant-arrival-rate takes a whole number of iterations per time unit: a fractional rate is given per 1000 s.
const whole = Number.isInteger(rate);
const perUnit = whole ? rate : Math.round(rate * 1000);
/** Iteration n of the test is planned n x this after the scenario's start (k6's ticker period). */
const periodMs = (whole ? 1000 : 1_000_000) / perUnit;

export const options: Options = {
  scenarios: {
    [scenarioName]: {
      executor: 'constant-arrival-rate',
      rate: perUnit,
      timeUnit: whole ? '1s' : '1000s',
      duration: `${Math.round(warmupMs + windowMs)}ms`,
      // All pre-allocated: a VU started mid-step costs an init while its iterations are dropped.
      preAllocatedVUs: vus,
      maxVUs: vus,
      gracefulStop: `${Math.round(gracefulStopMs)}ms`,
    },
  },
  // Few tags: every request writes about a dozen rows to the per-request output, and no URL goes there.
  systemTags: ['scenario', 'status', 'name'],
  // A redirect would carry the key elsewhere: none is followed (a 3xx fails the reply check).
  maxRedirects: 0,
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(99)', 'count'],
};

/** Latency from the planned send, ms; tagged by phase (warmup, window) and outcome (ok or the error kind). */
const capLatency = new Trend('cap_latency', true);
/** Iterations started: one the graceful stop interrupts reports no latency, and its start must still be known. */
const capStarted = new Counter('cap_started');

const url = `${(__ENV.MCP_BASE_URL ?? '').replace(/\/$/, '')}${MCP_PATH}`;
const headers = requestHeaders(__ENV.MCP_API_KEY ?? '');
const cycle = weightedCycle(scenario).map((request) => ({ request, body: JSON.stringify(request.body) }));

/** k6's error code for a request that hit its timeout (https://grafana.com/docs/k6/latest/javascript-api/error-codes/). */
const K6_REQUEST_TIMEOUT = 1050;

export function setup(): void {
  if (!/^https?:\/\/[^/]/.test(__ENV.MCP_BASE_URL ?? '')) throw new Error(`MCP_BASE_URL must be an http(s) URL (got "${__ENV.MCP_BASE_URL ?? ''}")`);
  if (!__ENV.MCP_API_KEY) throw new Error('MCP_API_KEY is required');
}

/** This VU's estimate of the scenario's start on the test-run clock (ms): see the header. */
let origin: number | undefined;

export default function (): void {
  const start = exec.instance.currentTestRunDuration;
  const n = exec.scenario.iterationInTest;
  const coarse = exec.scenario.startTime - (Date.now() - start);
  // No iteration starts before its tick: one that started early by the coarse origin shows the origin earlier.
  origin = Math.min(origin ?? coarse, start - n * periodMs);
  const metadata = exec.vu.metrics.metadata;
  metadata.b = `${n} ${start.toFixed(3)}`;
  capStarted.add(1);
  // Metadata stays on the VU: the request's own rows must not carry it.
  delete metadata.b;
  const position = exec.scenario.iterationInInstance % cycle.length;
  const { request, body } = cycle[position]!;
  const res = http.post(url, body, { headers, tags: { name: request.name }, timeout: timeoutMs });
  const end = exec.instance.currentTestRunDuration;
  let kind: ErrorKind | undefined;
  if (res.status === 0) {
    kind = res.error_code === K6_REQUEST_TIMEOUT ? 'timeout' : 'connection';
  } else {
    const contentType = res.headers['Content-Type'] ?? '';
    const text = typeof res.body === 'string' ? res.body : '';
    let messages: unknown[] | undefined;
    if (/^text\/event-stream\b/i.test(contentType)) messages = sseMessages(text);
    else {
      try {
        messages = [JSON.parse(text)];
      } catch {
        messages = undefined;
      }
    }
    kind = checkReply(request, res.status, contentType, messages).kind;
  }
  const plannedOffset = n * periodMs;
  metadata.s = `${n} ${start.toFixed(3)} ${end.toFixed(3)} ${res.timings.duration.toFixed(3)} ${kind ?? 'ok'} ${position}`;
  if (n === 0) metadata.o = coarse.toFixed(3);
  capLatency.add(end - (origin + plannedOffset), { cap_phase: plannedOffset < warmupMs ? 'warmup' : 'window', outcome: kind ?? 'ok' });
  delete metadata.s;
  delete metadata.o;
}

/** A point of an execution segment: `1/4`, `0.25` or `25%`. */
function segmentPoint(text: string): number {
  const [n, d] = text.split('/');
  if (d !== undefined) return Number(n) / Number(d);
  return text.endsWith('%') ? Number(text.slice(0, -1)) / 100 : Number(text);
}

/** This runner's execution segment (`1/4:2/4`) and its share of the arrivals, when it runs part of a distributed test. */
function executionSegment(): { segment: string; share: number } | undefined {
  const segment = exec.test.options.executionSegment as unknown;
  if (typeof segment !== 'string' || segment === '') return undefined;
  const [from, to] = segment.split(':');
  const share = segmentPoint(to ?? '1') - segmentPoint(from ?? '0');
  return Number.isFinite(share) && share > 0 ? { segment, share } : undefined;
}

/** The parts of k6's end-of-test data read here. */
interface SummaryData {
  state?: { testRunDurationMs?: number };
  metrics: Record<string, { values: Record<string, number> } | undefined>;
}

/** What the driver needs beside the samples: the run's length on its clock, and what k6 dropped or interrupted. */
export function handleSummary(data: SummaryData): Record<string, string> {
  const count = (metric: string) => data.metrics[metric]?.values.count ?? 0;
  const segment = executionSegment();
  const step = {
    scenario: scenarioName,
    executionSegment: segment?.segment ?? null,
    share: segment?.share ?? 1,
    rate,
    periodMs,
    warmupMs,
    windowMs,
    gracefulStopMs,
    vus,
    testRunDurationMs: data.state?.testRunDurationMs ?? 0,
    iterations: count('iterations'),
    droppedIterations: count('dropped_iterations'),
    samples: count('cap_latency'),
  };
  const at = summaryDir ? `${summaryDir}/capacity-step.json` : 'capacity-step.json';
  return {
    stdout: `capacity step: ${scenarioName} at ${rate} req/s, ${step.samples} samples, ${step.droppedIterations} dropped iterations\n`,
    [at]: `${JSON.stringify(step)}\n`,
  };
}
