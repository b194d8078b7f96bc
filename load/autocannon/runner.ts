/**
 * One autocannon run of one scenario, through autocannon's programmatic API: the scenario's weighted cycle
 * is autocannon's `requests` array, every reply is judged by the shared reply check, latency is kept per
 * response at microsecond resolution, and streaming replies are timed to their first event and result.
 */
import autocannon from 'autocannon';
import { createHistogram, performance } from 'node:perf_hooks';
import { checkReply, type ErrorKind, type ReplyVerdict } from '../reply-check.js';
import { requestHeaders, weightedCycle, type LoadRequest, type Scenario } from '../scenarios.js';
import {
  HISTOGRAM_RANGE, emptyErrorsByKind, latencyDistribution, latencySummary, percentileSummary,
  type RequestBreakdown, type ScenarioResult, type ThroughputSecond,
} from '../report/load-results.js';
import { headerValue, replyMessages } from './reply-messages.js';
import { StreamingTiming, type AutocannonClient } from './streaming-timing.js';

export interface RunSettings {
  durationS: number;
  connections: number;
  /** Fixed overall arrival rate in requests per second; undefined: closed loop. */
  rate?: number;
  /** Requests written at most (already capped by CAPS.requests). */
  maxRequests: number;
  /** Per-request deadline in seconds (autocannon's `timeout`). */
  timeoutS: number;
  /** autocannon's progress bar on stderr. */
  progress: boolean;
}

export interface ScenarioRun {
  result: Promise<ScenarioResult>;
  /** Ends the run early (at autocannon's next one-second tick). */
  stop(): void;
  /** The run so far, for a progress line: seconds since it started, requests written, responses, errors (as the report counts them). */
  soFar(): RunSoFar;
}

export interface RunSoFar { elapsedS: number; sent: number; responses: number; errors: number }

/** autocannon 9's result fields used here (its type definitions describe version 7). */
interface AutocannonResult {
  latency: { p50: number; p90: number; p99: number; max: number };
}

export function runScenario(target: { mcpUrl: string; apiKey: string }, scenario: Scenario, settings: RunSettings): ScenarioRun {
  const latency = createHistogram(HISTOGRAM_RANGE);
  const streamingTiming = new StreamingTiming();
  const errorsByKind = emptyErrorsByKind();
  const statusCodes: Record<string, number> = {};
  const byRequest = new Map<string, RequestBreakdown>(scenario.requests.map((r) => [r.name, { name: r.name, responses: 0, errors: 0 }]));
  const perSecond: ThroughputSecond[] = [];
  const progress = { count: 0, sum: 0, min: Infinity, max: 0 };
  let responses = 0;
  let sent = 0;
  let transportErrors = 0;
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  let lastCompletion = t0;

  const bucket = (): ThroughputSecond => {
    const now = performance.now();
    lastCompletion = now;
    const second = Math.floor((now - t0) / 1000);
    while (perSecond.length <= second) perSecond.push({ second: perSecond.length, responses: 0, errors: 0 });
    return perSecond[second]!;
  };
  const countError = (kind: ErrorKind) => {
    errorsByKind[kind] += 1;
    bucket().errors += 1;
  };

  // autocannon calls a request's onResponse, then emits the client's 'response' event, synchronously and
  // for the same reply (lib/httpClient.js, kOnMessageComplete): the verdict is handed over in between.
  let judged: { request: LoadRequest; verdict: ReplyVerdict } | undefined;
  const path = (() => {
    const u = new URL(target.mcpUrl);
    return `${u.pathname}${u.search}`;
  })();
  const requests = weightedCycle(scenario).map((request) => {
    // A stateless service answers one request with the same bytes again and again, and the verdict is a
    // function of the request, status, content type and body: a reply identical to the last one gets its
    // verdict without parsing it again (parsing every 9.5 KB tools/list reply cost the runner 3/4 of its rate).
    let last: { status: number; contentType: string; body: string; verdict: ReplyVerdict } | undefined;
    return {
      method: 'POST' as const,
      path,
      body: JSON.stringify(request.body),
      onResponse: (status: number, body: string, _context: object, headers: Record<string, unknown>) => {
        const contentType = headerValue(headers, 'content-type');
        if (last && last.status === status && last.contentType === contentType && last.body === body) {
          judged = { request, verdict: last.verdict };
          return;
        }
        const ok2xx = status >= 200 && status < 300;
        const verdict = checkReply(request, status, contentType, ok2xx ? replyMessages(contentType, body) : undefined);
        last = { status, contentType, body, verdict };
        judged = { request, verdict };
      },
    };
  });

  const setupClient = (client: AutocannonClient) => {
    streamingTiming.attach(client);
    // setupClient runs before the client's first request, so this sees every one (autocannon's own
    // `requests.sent` guesses the first ones, wrongly with a rate).
    client.on('request', () => {
      sent += 1;
    });
    client.on('response', (status: number, _bytes: number, responseTimeMs: number) => {
      const j = judged;
      judged = undefined;
      responses += 1;
      const b = bucket();
      b.responses += 1;
      statusCodes[String(status)] = (statusCodes[String(status)] ?? 0) + 1;
      latency.record(Math.max(1, Math.round(responseTimeMs * 1000)));
      if (!j) return;
      const r = byRequest.get(j.request.name)!;
      r.responses += 1;
      if (j.request.streaming && status >= 200 && status < 300) {
        const n = j.verdict.progress;
        progress.count += 1;
        progress.sum += n;
        progress.min = Math.min(progress.min, n);
        progress.max = Math.max(progress.max, n);
      }
      if (!j.verdict.ok) {
        r.errors += 1;
        countError(j.verdict.kind ?? 'unparseable');
      }
    });
    client.on('timeout', () => {
      transportErrors += 1;
      countError('timeout');
    });
    client.on('connError', () => {
      transportErrors += 1;
      countError('connection');
    });
  };

  const connections = Math.max(1, Math.min(settings.connections, settings.maxRequests));
  // autocannon never follows a redirect (lib/httpClient.js writes to its one host and has no Location
  // handling): a 3xx is a reply like any other, failed by the reply check as not 2xx.
  const options = {
    url: target.mcpUrl,
    method: 'POST' as const,
    headers: requestHeaders(target.apiKey),
    connections,
    duration: settings.durationS,
    timeout: settings.timeoutS,
    pipelining: 1,
    // Combines with `duration` (unlike `amount`, which replaces it): each connection stops after its share,
    // so at most maxRequests are written. More connections than requests would give some a share of 0,
    // which autocannon reads as "no limit": hence connections ≤ maxRequests above.
    maxOverallRequests: settings.maxRequests,
    ...(settings.rate !== undefined && {
      overallRate: settings.rate,
      // autocannon 9.0.0 corrects coordinated omission with an expected interval of 1 ms whatever the rate
      // (seconds taken for milliseconds) and invents latency samples (load-facts.md): its own histogram
      // must not correct. Ours records each response's own time, so it is not affected either way.
      ignoreCoordinatedOmission: true,
    }),
    requests,
    setupClient,
  };

  let instance: autocannon.Instance | undefined;
  // autocannon looks at its stop flag on its one-second sample tick; its own duration timer fires at the
  // same moment as the last tick and often loses the race, and the run goes on for one more second. Raising
  // the flag half a second early ends the run on the tick at `duration`.
  const endTimer = setTimeout(() => instance?.stop(), Math.max(500, settings.durationS * 1000 - 500));
  const result = new Promise<ScenarioResult>((resolve, reject) => {
    const started: autocannon.Instance = autocannon(options as unknown as autocannon.Options, (err: unknown, raw: unknown) => {
      clearTimeout(endTimer);
      if (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const ac = raw as AutocannonResult;
      // The window: until autocannon stopped its connections (replies still in flight then are not counted,
      // as in autocannon's own req/s), or up to the last completion when the request cap ended it earlier.
      const capped = sent >= settings.maxRequests;
      const windowMs = Math.max(1, (capped ? lastCompletion : performance.now()) - t0);
      const durationS = Math.round(windowMs) / 1000;
      // Whole seconds only: a last, partial second would read as a drop in throughput.
      const fullSeconds = Math.max(1, Math.floor(windowMs / 1000));
      // Seconds in which nothing completed (a stalled server) are zeros, not missing.
      while (perSecond.length < fullSeconds) perSecond.push({ second: perSecond.length, responses: 0, errors: 0 });
      const errors = Object.values(errorsByKind).reduce((a, b) => a + b, 0);
      const streaming = scenario.requests.some((r) => r.streaming);
      resolve({
        name: scenario.name,
        description: scenario.description,
        engine: 'autocannon',
        startedAt,
        durationS,
        requestsPerSecond: Math.round((responses / (windowMs / 1000)) * 10) / 10,
        requests: responses,
        requestsSent: sent,
        latencyMs: latencySummary(latency),
        latencyDistribution: latencyDistribution(latency),
        autocannonLatencyMs: { p50: ac.latency.p50, p90: ac.latency.p90, p99: ac.latency.p99, max: ac.latency.max },
        errors,
        errorsByKind,
        errorRate: responses + transportErrors === 0 ? 0 : errors / (responses + transportErrors),
        statusCodes,
        byRequest: [...byRequest.values()],
        throughput: perSecond.slice(0, fullSeconds),
        ...(streaming && {
          streaming: {
            responses: progress.count,
            progressEvents: progress.count === 0
              ? { min: 0, mean: 0, max: 0 }
              : { min: progress.min, mean: Math.round((progress.sum / progress.count) * 100) / 100, max: progress.max },
            timeToFirstEventMs: percentileSummary(streamingTiming.firstEvent),
            timeToResultMs: percentileSummary(streamingTiming.result),
          },
        }),
      });
    });
    instance = started;
    if (settings.progress) autocannon.track(started, { renderProgressBar: true, renderResultsTable: false, renderLatencyTable: false });
  });
  return {
    result,
    stop: () => instance?.stop(),
    soFar: () => ({
      elapsedS: (performance.now() - t0) / 1000, sent, responses, errors: Object.values(errorsByKind).reduce((a, b) => a + b, 0),
    }),
  };
}
