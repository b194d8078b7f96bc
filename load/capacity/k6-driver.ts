/**
 * The capacity search's steps on k6: a StepRunner that runs load/k6/capacity-step.ts once per window
 * (`constant-arrival-rate` at the step's rate for its warm-up and window), reads its per-request samples and
 * judges them exactly as the undici driver's (latency from the planned send, exceedances counted exactly,
 * windows merged as HDR histograms). So a search outgrowing one machine's undici driver keeps its judgement
 * when k6, or the same script on k6-operator or Grafana Cloud k6, sends the load. What k6 cannot do, the step
 * says: an iteration k6 dropped (no free VU) was a request never sent, and makes the step invalid unless
 * the SLO already broke; the time to the first progress notification is not observable (k6 reads a reply whole).
 *
 * k6 gets the key in its environment only (never its command line, where `ps` shows it), its output files
 * hold no header and no URL (the script's systemTags), and a run that outlives its bound is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { reaped } from '../../src/kit/child-reaper.js';
import { redact } from '../../src/kit/scrub.js';
import { MCP_PATH, requestHeaders, weightedCycle, type LoadRequest, type Scenario } from '../scenarios.js';
import { mergeRuns, readK6Csv, runFigures, type K6RunFigures, type K6StepSummary } from './k6-step-output.js';
import type { Decision, StepMeasurement, StepPlan } from './open-model-driver.js';
import type { StepRunner } from './search.js';

export const K6_STEP_SCRIPT = join(PACKAGE_ROOT, 'load', 'k6', 'capacity-step.ts');

export interface K6DriverOptions {
  /** The k6 binary (load/k6-binary.ts ensureK6). */
  k6: string;
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
  /** Where k6 writes its files; kept when given (the caller removes it), else a temporary folder removed by close(). */
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
/** Output kept from k6's stdout and stderr, for the error of a run that failed. */
const TAIL_CHARS = 4000;

export class K6StepDriver implements StepRunner {
  private readonly dir: string;
  private readonly ownDir: boolean;
  private readonly cycle: LoadRequest[];
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private running?: ChildProcess;
  private closed = false;
  private runs = 0;
  /** Requests sent in all (what the run spent). */
  sentTotal = 0;

  constructor(private readonly options: K6DriverOptions) {
    this.ownDir = options.workDir === undefined;
    this.dir = options.workDir ?? mkdtempSync(join(tmpdir(), 'capacity-k6-'));
    // k6's --out takes comma-separated settings: a folder with a comma would be misread.
    if (this.dir.includes(',')) throw new Error(`k6 driver: the work folder ${this.dir} holds a comma, which k6's --out cannot take`);
    this.cycle = weightedCycle(options.scenario);
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
    this.closed = true;
    this.running?.kill('SIGKILL');
    await this.pool.close().catch(() => undefined);
    if (this.ownDir) rmSync(this.dir, { recursive: true, force: true });
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
    if (this.closed) throw new Error('k6 driver: closed');
    const id = ++this.runs;
    const csv = join(this.dir, `samples-${id}.csv`);
    const summaryDir = join(this.dir, `run-${id}`);
    mkdirSync(summaryDir, { recursive: true });
    const gracefulStopMs = this.gracefulStopMs(plan);
    const env: NodeJS.ProcessEnv = {};
    // Nothing inherited may steer k6 or the script (K6_DURATION, a stray CAP_RATE...): only this step's inputs.
    for (const [name, value] of Object.entries(process.env)) if (!/^(K6_|LOAD_|MCP_|CAP_|SUMMARY_DIR$)/.test(name)) env[name] = value;
    Object.assign(env, {
      MCP_BASE_URL: this.options.baseUrl,
      MCP_API_KEY: this.options.apiKey,
      LOAD_SCENARIO: this.options.scenario.name,
      CAP_RATE: String(plan.rate),
      CAP_WARMUP_S: String(plan.warmupMs / 1000),
      CAP_WINDOW_S: String(plan.windowMs / 1000),
      CAP_VUS: String(this.vusFor(plan)),
      CAP_TIMEOUT_MS: String(this.options.timeoutMs),
      CAP_GRACEFUL_STOP_MS: String(gracefulStopMs),
      SUMMARY_DIR: summaryDir,
      // No anonymous usage report to Grafana from a test run.
      K6_NO_USAGE_REPORT: 'true',
    });
    // --address '': no REST API listener (parallel runs would fight over port 6565).
    const args = ['run', '--quiet', '--no-color', '--address', '', '--out', `csv=fileName=${csv},timeFormat=unix_micro`, K6_STEP_SCRIPT];
    const before = await this.serverReading();
    const startedAt = performance.now();
    const bound = STARTUP_HANG_MS + plan.warmupMs + plan.windowMs + gracefulStopMs + 10_000;
    const { code, cpuSeconds, tail, why } = await this.spawnK6(args, env, bound);
    const wallS = (performance.now() - startedAt) / 1000;
    const after = await this.serverReading();
    const summaryPath = join(summaryDir, 'capacity-step.json');
    try {
      if (why) throw new Error(`k6 driver: ${why}`);
      // 99: a threshold crossed (the script sets none; a user's options might): the samples are still whole.
      if ((code !== 0 && code !== 99) || !existsSync(summaryPath) || !existsSync(csv)) {
        throw new Error(`k6 driver: k6 ${code === null ? 'was killed' : `exited ${code}`}${existsSync(summaryPath) ? '' : ' without its step summary'}${tail ? `:\n${redact(tail, [this.options.apiKey])}` : ''}`);
      }
      const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as K6StepSummary;
      const output = await readK6Csv(csv);
      const figures = runFigures(output, summary, plan, this.cycle);
      this.sentTotal += figures.requests;
      const serverResult: { cpuCores?: number; rssMiB?: number } = {};
      // Over k6's whole run (its start and graceful stop too): a little under the server's load in the window.
      if (before?.cpuMicros !== undefined && after?.cpuMicros !== undefined) serverResult.cpuCores = (after.cpuMicros - before.cpuMicros) / 1e6 / wallS;
      if (after?.rssBytes !== undefined) serverResult.rssMiB = after.rssBytes / 2 ** 20;
      return { figures, cpuCores: cpuSeconds / wallS, server: serverResult };
    } finally {
      // A run's files are read once; a kept work folder keeps them for whoever asked.
      if (this.ownDir) {
        rmSync(csv, { force: true });
        rmSync(summaryDir, { recursive: true, force: true });
      }
    }
  }

  private async serverReading(): Promise<{ cpuMicros?: number; rssBytes?: number } | undefined> {
    return this.options.serverStats?.().catch(() => undefined);
  }

  /** Runs k6; resolves when it exits, killed past `boundMs`, on the signal or on close(). */
  private spawnK6(args: string[], env: NodeJS.ProcessEnv, boundMs: number): Promise<{ code: number | null; cpuSeconds: number; tail: string; why?: string }> {
    return new Promise((resolve, reject) => {
      const child = reaped(spawn(this.options.k6, args, { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
      this.running = child;
      let tail = '';
      const keep = (chunk: Buffer) => {
        tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      let why: string | undefined;
      const kill = (reason: string) => {
        why ??= reason;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => kill(`k6 did not end within ${Math.round(boundMs / 1000)} s: killed`), boundMs);
      const onAbort = () => kill('the step was aborted: k6 killed');
      this.options.signal?.addEventListener('abort', onAbort, { once: true });
      if (this.options.signal?.aborted) onAbort();
      // k6's CPU, from /proc while it runs (Linux; 0 elsewhere): the generator's own load beside the step's figures.
      let cpuSeconds = 0;
      const readCpu = () => {
        try {
          const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
          cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100;
        } catch {
          // gone, or not Linux
        }
      };
      const sampler = setInterval(readCpu, 200);
      child.once('error', (err) => {
        clearTimeout(timer);
        clearInterval(sampler);
        this.running = undefined;
        reject(new Error(`k6 driver: could not start k6 (${this.options.k6}): ${err.message}`));
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        clearInterval(sampler);
        this.options.signal?.removeEventListener('abort', onAbort);
        this.running = undefined;
        if (this.closed) why ??= 'the driver was closed: k6 killed';
        resolve({ code, cpuSeconds, tail, ...(why !== undefined && { why }) });
      });
    });
  }
}
