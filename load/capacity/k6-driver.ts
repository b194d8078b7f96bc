/**
 * The capacity search's steps on k6: a StepRunner that runs load/k6/capacity-step.ts once per window
 * (`constant-arrival-rate` at the step's rate for its warm-up and window), reads its per-request samples and
 * judges them exactly as the undici driver's (latency from the planned send, exceedances counted exactly,
 * windows merged as HDR histograms). So a search outgrowing one machine's undici driver keeps its judgement
 * when k6, or the same script on k6-operator or Grafana Cloud k6, sends the load. What k6 cannot do, the step
 * says: an iteration k6 dropped (no free VU) was a request never sent, and makes the step invalid unless
 * the SLO already broke; the time to the first progress notification is not observable (k6 reads a reply whole).
 *
 * Where k6 runs is a launcher's: by default a local k6 process (k6-local.ts: the key in its environment only,
 * killed on abort, on close() and past its bound); another launcher may run each step as a k6-operator
 * TestRun and hand back its runners' files, judged together. k6's output files hold no header and no URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { MCP_PATH, requestHeaders, weightedCycle, type LoadRequest, type Scenario } from '../scenarios.js';
import { localK6, type K6Launcher } from './k6-local.js';
import { mergeRuns, readK6Run, type K6RunFigures } from './k6-step-output.js';
import type { Decision, StepMeasurement, StepPlan } from './open-model-driver.js';
import type { StepRunner } from './search.js';

export interface K6DriverOptions {
  /** The k6 binary (load/k6-binary.ts ensureK6), for the default launcher: a local k6 process per run. */
  k6?: string;
  /** Runs each step elsewhere (a k6-operator TestRun, say) and returns its runners' files; default: the local k6. */
  launch?: K6Launcher;
  /** The service's base URL; the script adds the MCP path. */
  baseUrl: string;
  /** Only ever in k6's environment and the Authorization header. */
  apiKey: string;
  scenario: Scenario;
  timeoutMs: number;
  /** The most VUs a step may have (all pre-allocated): the most requests in flight, as the undici driver's connections. */
  maxVus: number;
  /** VUs of every step whatever its rate (the tests' starved generator); default: sized per step up to `maxVus`. */
  vus?: number;
  /** Where the local k6 writes its files; kept when given (the caller removes it), else a temporary folder removed by close(). */
  workDir?: string;
  serverStats?: () => Promise<{ cpuMicros?: number; rssBytes?: number }>;
  /** Ends the k6 run under way (killed) and the step with an error. */
  signal?: AbortSignal;
}

/** How long k6 may take to start (compile the script, start its VUs) before a run counts as hung: a hang bound, not a speed limit. */
const STARTUP_HANG_MS = 60_000;
/** Seconds of in-flight time a step's VUs cover at its rate: rate x this VUs (in flight = rate x latency). */
const VU_SECONDS_MIN = 0.25;
const VUS_MIN = 10;

export class K6StepDriver implements StepRunner {
  private readonly dir?: string;
  private readonly launch: K6Launcher;
  private readonly cycle: LoadRequest[];
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  /** Aborts the run under way on close(). */
  private readonly closing = new AbortController();
  private runs = 0;
  /** Requests sent in all (what the run spent). */
  sentTotal = 0;

  constructor(private readonly options: K6DriverOptions) {
    this.cycle = weightedCycle(options.scenario);
    if (options.launch) this.launch = options.launch;
    else {
      if (!options.k6) throw new Error('k6 driver: give the k6 binary (k6) or a launcher (launch)');
      // A folder of our own is removed on close(); one given is the caller's (its files stay there).
      if (options.workDir === undefined) this.dir = mkdtempSync(join(tmpdir(), 'capacity-k6-'));
      this.launch = localK6({ k6: options.k6, baseUrl: options.baseUrl, apiKey: options.apiKey, dir: options.workDir ?? this.dir! });
    }
    const url = new URL(`${options.baseUrl.replace(/\/$/, '')}${MCP_PATH}`);
    this.path = `${url.pathname}${url.search}`;
    this.pool = new Pool(url.origin, { connections: 1, keepAliveTimeout: 30_000 });
    this.headers = requestHeaders(options.apiKey);
  }

  /** One request on its own, through undici (as the undici driver's): the baseline, and the drain probe. */
  async single(): Promise<{ ms: number; ok: boolean } | undefined> {
    const body = JSON.stringify(this.cycle[0]!.body);
    const sentAt = performance.now();
    this.sentTotal++;
    try {
      const res = await this.pool.request({ path: this.path, method: 'POST', headers: this.headers, body, signal: AbortSignal.timeout(this.options.timeoutMs) });
      const text = await res.body.text();
      return { ms: performance.now() - sentAt, ok: res.statusCode >= 200 && res.statusCode < 300 && text.length > 0 };
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    this.closing.abort(new Error('the driver was closed'));
    await this.pool.close().catch(() => undefined);
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** VUs of a step at `rate`: enough for rate x max(0.25 s, 4 x the longest SLO threshold) in flight, within maxVus. */
  vusFor(plan: StepPlan): number {
    if (this.options.vus !== undefined) return this.options.vus;
    const longestS = Math.max(0, ...plan.thresholds.latency, ...plan.thresholds.ttfr) / 1000;
    return Math.min(this.options.maxVus, Math.max(VUS_MIN, Math.ceil(plan.rate * Math.max(VU_SECONDS_MIN, 4 * longestS))));
  }

  /**
   * How long requests in flight at a run's end may finish: long enough that one still running is past every
   * SLO threshold (it is counted at its age then, a lower bound, as the undici driver counts its pending
   * ones), within the request timeout.
   */
  gracefulStopMs(plan: StepPlan): number {
    const longest = Math.max(0, ...plan.thresholds.latency, ...plan.thresholds.ttfr);
    return longest > 0 ? Math.min(this.options.timeoutMs, Math.max(1000, 3 * longest)) : this.options.timeoutMs;
  }

  /**
   * One k6 run per window: the first, then another (its own warm-up, the same window) each time `decide`
   * extends the step, up to `plan.maxWindows`. Every run's replies are in when it ends, so `decide` always
   * sees a final measurement.
   */
  async runStep(plan: StepPlan, decide: (m: StepMeasurement, final: boolean) => Decision): Promise<StepMeasurement> {
    if (plan.arrivals !== 'constant') throw new Error('k6 driver: k6\'s constant-arrival-rate sends constant arrivals only (--arrivals constant)');
    if (plan.thresholds.ttfp.length > 0) throw new Error('k6 driver: the time to the first progress notification (ttfp) is not observable in k6, which reads a reply whole: judge ttfr, or use the undici driver');
    const runs: K6RunFigures[] = [];
    let cpuCores = 0;
    const server: { cpuCores?: number; rssMiB?: number } = {};
    for (;;) {
      const run = await this.runOnce(plan);
      runs.push(run.figures);
      cpuCores = Math.max(cpuCores, run.cpuCores);
      if (run.server.cpuCores !== undefined) server.cpuCores = Math.max(server.cpuCores ?? 0, run.server.cpuCores);
      if (run.server.rssMiB !== undefined) server.rssMiB = run.server.rssMiB;
      const m = mergeRuns(runs, plan, { cpuCores }, server);
      if (decide(m, true) !== 'extend' || runs.length >= plan.maxWindows) return m;
    }
  }

  private async runOnce(plan: StepPlan): Promise<{ figures: K6RunFigures; cpuCores: number; server: { cpuCores?: number; rssMiB?: number } }> {
    if (this.closing.signal.aborted) throw new Error('k6 driver: closed');
    const gracefulStopMs = this.gracefulStopMs(plan);
    const inputs = {
      LOAD_SCENARIO: this.options.scenario.name,
      CAP_RATE: String(plan.rate),
      CAP_WARMUP_S: String(plan.warmupMs / 1000),
      CAP_WINDOW_S: String(plan.windowMs / 1000),
      CAP_VUS: String(this.vusFor(plan)),
      CAP_TIMEOUT_MS: String(this.options.timeoutMs),
      CAP_GRACEFUL_STOP_MS: String(gracefulStopMs),
    };
    const signal = this.options.signal ? AbortSignal.any([this.closing.signal, this.options.signal]) : this.closing.signal;
    const before = await this.serverReading();
    const startedAt = performance.now();
    const launched = await this.launch({ inputs, id: ++this.runs, boundMs: STARTUP_HANG_MS + plan.warmupMs + plan.windowMs + gracefulStopMs + 10_000, signal });
    const wallS = (performance.now() - startedAt) / 1000;
    const after = await this.serverReading();
    try {
      const figures = await readK6Run(launched.runners, plan, this.cycle);
      this.sentTotal += figures.requests;
      const server: { cpuCores?: number; rssMiB?: number } = {};
      // Over k6's whole run (its start and graceful stop too): a little under the server's load in the window.
      if (before?.cpuMicros !== undefined && after?.cpuMicros !== undefined) server.cpuCores = (after.cpuMicros - before.cpuMicros) / 1e6 / wallS;
      if (after?.rssBytes !== undefined) server.rssMiB = after.rssBytes / 2 ** 20;
      return { figures, cpuCores: launched.cpuCores ?? 0, server };
    } finally {
      // A run's files are read once: the driver's own folder keeps none (10 MB a step at 1000 req/s).
      if (this.dir) for (const r of launched.runners) for (const file of [r.csv, r.summary]) rmSync(file, { force: true });
    }
  }

  private async serverReading(): Promise<{ cpuMicros?: number; rssBytes?: number } | undefined> {
    return this.options.serverStats?.().catch(() => undefined);
  }
}
