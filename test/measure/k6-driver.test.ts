import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { K6StepDriver } from '../../load/capacity/k6-driver.js';
import { localK6, type K6Launcher } from '../../load/capacity/k6-local.js';
import { readK6Csv, runFigures, type K6StepSummary } from '../../load/capacity/k6-step-output.js';
import { makeRunners } from '../../load/capacity/runners.js';
import { readCapacityOptions } from '../../src/cli/capacity-options.js';
import { runCapacity, type CapacityRunOptions, type CapacityTarget } from '../../load/capacity/run-capacity.js';
import { parseSlo, thresholdsOf } from '../../load/capacity/slo.js';
import { defaultGeneratorBounds, judgeStep } from '../../load/capacity/step-judge.js';
import { MCP_PATH, scenarioByName } from '../../load/scenarios.js';
import { outputLeaks, reportFiles } from '../helpers/key-leaks.js';
import { startFifoEndpoint, type FifoEndpoint } from '../capacity/helpers/fifo-endpoint.js';

// The capacity search on k6 (load/k6/capacity-step.ts, one k6 run per step) against an endpoint of known
// capacity: 4 servers of 20 ms behind one FIFO queue hold 200 req/s and no more. The k6-driven and the
// undici-driven searches must agree within 10 % (issue 34), and a step k6 cannot deliver (too few VUs for the
// rate: dropped iterations) must be invalid, never a capacity. k6 missing is a failure, never a skip:
// beforeAll builds it with the project script (about a minute when missing).

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVERS = 4;
const SERVICE_MS = 20;
/** Few samples decide a p90 (35 with none beyond it): short windows. */
const SLO = parseSlo('p90<=60ms');
const scenario = scenarioByName('tools-list')!;
/** Shaped like a live key, so that the leak check looks for every spelling of it. */
const API_KEY = 'mcp_live_k6DriverTestKey0123456789abcdef';

let endpoint: FifoEndpoint;
let k6: string;
const dirs: string[] = [];

beforeAll(async () => {
  k6 = execFileSync('bash', ['scripts/install-k6.sh'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).trim().split('\n').pop()!;
  endpoint = await startFifoEndpoint(SERVERS, SERVICE_MS);
}, 600_000);

afterAll(async () => {
  await endpoint?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const target = (): CapacityTarget => ({ kind: 'url', baseUrl: endpoint.baseUrl, mcpUrl: `${endpoint.baseUrl}${MCP_PATH}`, apiKey: API_KEY, description: 'FIFO endpoint, 4 x 20 ms' });

/**
 * One search, short: steps of 1 s warm-up and 1 s windows from 150 req/s, bisected to 5 % (two searches a
 * bisection step apart would differ by its width). The send-lag bound
 * is widened for both drivers alike (this proves their agreement, not a busy 2-core machine's timer precision).
 */
function options(extra: Partial<CapacityRunOptions>): CapacityRunOptions {
  return {
    target: target(), scenarios: [scenario], slos: new Map([[scenario.name, SLO]]),
    maxRate: 800, startRate: 150, tolerance: 0.05, arrivals: 'constant', seed: 1,
    warmupS: 1, windowS: 1, maxWindowS: 3, timeoutS: 5, connections: 256,
    calibrate: false, overload: false, soakFraction: 0.8, maxTimeS: 100,
    bounds: { lagBoundMs: 25 },
    ...extra,
  };
}

describe('the capacity search driving k6', () => {
  it('finds the same sustained rate as the undici driver, within 10 %, on a 200 req/s endpoint', async () => {
    const lines: string[] = [];
    const t0 = performance.now();
    const undici = await runCapacity(options({ log: (l) => lines.push(`undici ${l}`) }));
    const t1 = performance.now();
    const viaK6 = await runCapacity(options({ ...makeRunners({ driver: 'k6', timeoutS: 5, connections: 256 }, target()), log: (l) => lines.push(`k6 ${l}`) }));
    const t2 = performance.now();
    const u = undici.scenarios[0]!;
    const k = viaK6.scenarios[0]!;
    const context = lines.join('\n');
    const steps = (r: typeof u) => r.steps.map((s) => `${s.offered} ${s.verdict} p90 ${s.latencyMs.planned.p90} ms`).join(', ');
    console.log(`undici: ${u.summary} in ${((t1 - t0) / 1000).toFixed(1)} s (${steps(u)})\nk6: ${k.summary} in ${((t2 - t1) / 1000).toFixed(1)} s (${steps(k)})`);
    expect(viaK6.driver).toBe('k6');
    expect(undici.driver).toBe('undici');
    expect(u.bound, context).toBe('slo');
    expect(k.bound, context).toBe('slo');
    // Both near the endpoint's known capacity (below it on a machine busy enough to delay its replies), and within 10 % of each other.
    for (const r of [u, k]) {
      expect(r.sustained!, context).toBeGreaterThanOrEqual(endpoint.capacity * 0.6);
      expect(r.sustained!, context).toBeLessThanOrEqual(endpoint.capacity * 1.1);
    }
    expect(Math.abs(k.sustained! - u.sustained!) / Math.max(k.sustained!, u.sustained!), context).toBeLessThanOrEqual(0.1);
    // k6's steps carry its own figures: no iteration dropped where a step held, and every latency from the planned send.
    for (const s of k.steps) {
      expect(s.generator.droppedIterations, context).toBeDefined();
      if (s.verdict === 'pass') expect(s.generator.droppedIterations, context).toBe(0);
      expect(s.latencyMs.planned.count, context).toBeGreaterThan(0);
    }
    expect(k.requests).toBeGreaterThan(0);
  }, 240_000);

  it('judges a step k6 cannot deliver (2 VUs for 400 req/s of 20 ms replies) invalid, and writes no key', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'k6-driver-test-'));
    dirs.push(workDir);
    const driver = new K6StepDriver({ k6, baseUrl: endpoint.baseUrl, apiKey: API_KEY, scenario, timeoutMs: 5000, maxVus: 256, vus: 2, workDir });
    try {
      const plan = { rate: 400, arrivals: 'constant' as const, seed: 1, warmupMs: 500, windowMs: 1000, maxWindows: 1, thresholds: { latency: thresholdsOf(SLO, 'latency'), ttfp: [], ttfr: [] } };
      const m = await driver.runStep(plan, () => 'done');
      const judged = judgeStep(m, SLO, defaultGeneratorBounds(SLO), true, false);
      // Two VUs of 20 ms replies send about 100 req/s: k6 dropped the rest, and the ones sent were quick.
      expect(m.generator.droppedIterations).toBeGreaterThan(m.planned / 2);
      expect(m.sent + m.generator.droppedIterations!).toBeGreaterThanOrEqual(m.planned - 2);
      expect(m.latency.percentile(90)).toBeLessThan(60);
      expect(judged.verdict).toBe('invalid');
      expect(judged.reason).toMatch(/k6 dropped \d+ of the 400 iterations/);
    } finally {
      await driver.close();
    }
    const files = reportFiles(workDir);
    expect(Object.keys(files).some((f) => f.endsWith('.csv'))).toBe(true);
    expect(outputLeaks(files, '', [API_KEY])).toEqual([]);
  }, 120_000);

  it('judges a step run by two k6 runners with execution segments (k6-operator, parallelism 2) on their files together', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'k6-driver-segments-'));
    dirs.push(workDir);
    const sequence = ['--execution-segment-sequence', '0,1/2,1'];
    const runners = ['0:1/2', '1/2:1'].map((segment) => localK6({ k6, baseUrl: endpoint.baseUrl, apiKey: API_KEY, dir: workDir, args: ['--execution-segment', segment, ...sequence] }));
    // What a k6-operator launcher would do: start the runners together, and hand back each one's files.
    const launch: K6Launcher = async (run) => {
      const done = await Promise.all(runners.map((runner, i) => runner({ ...run, id: run.id * 10 + i })));
      return { runners: done.flatMap((d) => d.runners) };
    };
    const driver = new K6StepDriver({ launch, baseUrl: endpoint.baseUrl, apiKey: API_KEY, scenario, timeoutMs: 5000, maxVus: 256 });
    try {
      const plan = { rate: 150, arrivals: 'constant' as const, seed: 1, warmupMs: 1000, windowMs: 1000, maxWindows: 1, thresholds: { latency: thresholdsOf(SLO, 'latency'), ttfp: [], ttfr: [] } };
      const m = await driver.runStep(plan, () => 'done');
      // Each runner sent every second request of the test's schedule: together, the whole window, each timed from its planned send.
      expect(m.planned).toBe(150);
      expect(m.sent).toBe(150);
      expect(m.generator.droppedIterations).toBe(0);
      expect(m.latency.count).toBe(150);
      expect(m.latency.percentile(50)).toBeGreaterThanOrEqual(SERVICE_MS * 0.9);
      expect(m.latency.percentile(50)).toBeLessThan(60);
      expect(judgeStep(m, SLO, { ...defaultGeneratorBounds(SLO), lagBoundMs: 25 }, true, false).verdict).toBe('pass');
    } finally {
      await driver.close();
    }
  }, 120_000);

  it('never reports a capacity from steps k6 cannot deliver: the search stops at the generator', async () => {
    const report = await runCapacity(options({
      runner: () => new K6StepDriver({ k6, baseUrl: endpoint.baseUrl, apiKey: API_KEY, scenario, timeoutMs: 5000, maxVus: 256, vus: 2 }),
      driverName: 'k6',
      startRate: 300,
      maxTimeS: 60,
    }));
    const r = report.scenarios[0]!;
    expect(r.bound, r.summary).toBe('generator');
    expect(r.sustained).toBeNull();
    expect(r.steps.length).toBeGreaterThan(0);
    for (const s of r.steps) {
      expect(s.verdict).toBe('invalid');
      expect(s.reason).toMatch(/k6 dropped/);
    }
    expect(report.exitCode).toBe(2);
  }, 120_000);
});

describe('k6\'s per-request rows, read into a step\'s figures', () => {
  it('takes the dropped ticks out of the schedule, and counts an interrupted request at its age when the graceful stop ended it', async () => {
    // 100 req/s (a tick every 10 ms) from 100 ms on k6's clock; ticks 2, 3 and 6 dropped; the iteration of tick 7
    // still running at the graceful stop; the first started 0.01 ms after its tick (k6's start is the earliest
    // start less its offset), the others 0.5 ms after theirs, each answered 20 ms later.
    const wall = (runMs: number) => Math.round((runMs + 1_000_000) * 1000);
    const started = [0, 1, 4, 5, 7, 8];
    const rows = ['metric_name,timestamp,metric_value,name,scenario,status,extra_tags,metadata'];
    started.forEach((tick, n) => {
      const start = 100 + tick * 10 + (n === 0 ? 0.01 : 0.5);
      rows.push(`cap_started,${wall(start)},1.000000,,tools-list,,,b=${n} ${start.toFixed(3)}`);
      if (tick === 7) return;
      rows.push(`http_req_duration,${wall(start + 20)},20.000000,tools/list,tools-list,200,,`);
      rows.push(`cap_latency,${wall(start + 20)},20.5,,tools-list,,cap_phase=window&outcome=ok,s=${n} ${start.toFixed(3)} ${(start + 20).toFixed(3)} 19.900 ok 0${n === 0 ? '&o=99.600' : ''}`);
    });
    for (const tick of [2, 3, 6]) rows.push(`dropped_iterations,${wall(100 + tick * 10 + 0.2)},1.000000,,tools-list,,,`);
    const dir = mkdtempSync(join(tmpdir(), 'k6-rows-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'samples.csv'), `${rows.join('\n')}\n`);
    const summary: K6StepSummary = {
      scenario: 'tools-list', executionSegment: null, share: 1, rate: 100, periodMs: 10, warmupMs: 20, windowMs: 60, gracefulStopMs: 1000,
      vus: 2, testRunDurationMs: 1200, iterations: 5, droppedIterations: 3, samples: 5,
    };
    const plan = { rate: 100, arrivals: 'constant' as const, seed: 1, warmupMs: 20, windowMs: 60, maxWindows: 1, thresholds: { latency: [60], ttfp: [], ttfr: [] } };
    const f = runFigures(await readK6Csv(join(dir, 'samples.csv')), summary, plan, [scenario.requests[0]!]);
    // The window holds ticks 2-7: three dropped, two answered (ticks 4 and 5), one interrupted (tick 7).
    expect(f.planned).toBe(6);
    expect(f.dropped).toBe(3);
    expect(f.sent).toBe(3);
    expect(f.settled).toBe(2);
    expect(f.pending).toBe(1);
    expect(f.latency.count).toBe(3);
    // From the planned send: 20.5 ms for the answered ones (not 20.5 + the 20 ms of two dropped ticks), and the
    // interrupted one's age when the graceful stop ended it: 100 + 80 + 1000 - 170.
    expect(f.latency.percentile(50)).toBeCloseTo(20.49, 1);
    expect(f.latency.summary().max).toBeCloseTo(1010, 0);
    expect(f.latency.exceeding(60)).toBe(1);
    expect(f.sendLag.summary().max).toBeCloseTo(0.49, 2);
    expect(f.requests).toBe(6);
  });
});

describe('capacity --driver', () => {
  const read = (args: string[]) => readCapacityOptions(args, () => undefined);

  it('defaults to undici, and takes k6', () => {
    expect(read([]).driver).toBe('undici');
    expect(read(['--driver', 'k6']).driver).toBe('k6');
    expect(() => read(['--driver', 'wrk'])).toThrow(/--driver must be undici or k6/);
  });

  it('refuses with k6 what k6 cannot send or time: Poisson arrivals, the first progress notification', () => {
    expect(() => read(['--driver', 'k6', '--arrivals', 'poisson'])).toThrow(/constant arrivals only/);
    expect(() => read(['--driver', 'k6', '--scenario', 'schedule-preview', '--slo', 'ttfp-p99<=1s,ttfr-p99<=2s'])).toThrow(/cannot judge ttfp-p99<=1s/);
    expect(read(['--driver', 'k6', '--scenario', 'schedule-preview', '--slo', 'ttfr-p99<=2s']).driver).toBe('k6');
  });
});
