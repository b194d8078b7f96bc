/**
 * Scaling efficiency of the containerized reference (issue 34, item 6): the capacity search (runCapacity) against
 * one replica, then against docker-compose.yml's two replicas sharing one SQLite file, both behind the project's
 * balancer and each replica under the same CPU quota, small enough that the replicas and not the generator on
 * the same cores break first. Reports both sustained rates and their ratio; one setup at a time, each removed
 * (containers, network, volume) before the next starts, and on any failure or signal.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { parseCommandLine } from '../src/kit/command-line.js';
import { exitStatus, main, readCommandLine } from '../src/kit/main.js';
import { numberOption, UsageError } from '../src/kit/options.js';
import { Secrets, scrubText } from '../src/kit/scrub.js';
import { packageInfo } from '../src/kit/package-root.js';
import { killAllChildren } from '../src/kit/child-reaper.js';
import { bootstrapKey } from '../src/targets/bootstrap-keys.js';
import { ensureReferenceImage } from '../src/targets/container.js';
import { ensureContainerEngine } from '../src/targets/container-engine.js';
import { runCapacity } from '../load/capacity/run-capacity.js';
import type { CapacityReport } from '../load/capacity/capacity-result.js';
import { DEFAULT_SLO, parseSlo, termsProblem, type Slo } from '../load/capacity/slo.js';
import { MCP_PATH, SCENARIOS, scenarioByName } from '../load/scenarios.js';
import { UNTHROTTLED } from '../load/target.js';
import { removeRunSync, startReplicaSet, RUN_LABEL } from './capacity-replicas/podman-replicas.js';
import { headline, renderMarkdown, replicasReport, setupResult, type SetupResult } from './capacity-replicas/replicas-report.js';

/**
 * Measured on the 2-core machine (docs/capacity-replicas.md): at 0.25 cores one replica held tools-list at 400
 * req/s and the generator, not the replicas, stopped the search; at 0.1 one replica breaks near 75 req/s and two
 * near 150, well under what the generator offers beside them.
 */
const DEFAULT_CPUS = 0.1;
const DEFAULT_PERIOD_MS = 100;
/** Starting the containers, the key, calibration and closing, beyond each search's --max-time. */
const SETUP_ALLOWANCE_S = 150;

const USAGE = `Usage: npm run capacity:replicas -- [options]

Runs the capacity search against the reference in containers (podman): one replica behind the project's
balancer, then two replicas sharing one SQLite file behind it (docker-compose.yml's replica-a, replica-b),
each replica under the same CPU quota. Prints and writes both sustained rates and their ratio two/one
(scaling efficiency = ratio / 2). Ports on 127.0.0.1 only; every container, network and volume it starts
is removed at the end, also on failure and Ctrl-C.

  --cpus <n>            CPU quota of each replica, cores (default ${DEFAULT_CPUS}); small enough that the replicas,
                        not the generator sharing the machine, are the bottleneck
  --cpu-period <ms>     CFS period the quota applies in (default ${DEFAULT_PERIOD_MS}, as --cpus and compose's cpus);
                        a replica over its quota waits up to the rest of the period
  --scenario <name>     default tools-list; one of ${SCENARIOS.map((s) => s.name).join(', ')}
  --slo <terms>         default '${DEFAULT_SLO}'
  --max-time <s>        time budget of each search (default 120)
  --max-rate <r>        cap of each search, req/s (default 2000)
  --start-rate <r>      first step, req/s (default 50)
  --tolerance <pct>     bisection ends when the bracket is this narrow (default 5)
  --warmup <s>          warm-up of each step (default 1)
  --window <s>          shortest measured window (default 1)
  --max-window <s>      longest window with its extensions (default 10)
  --connections <n>     the driver's connection pool (default 256)
  --max-send-lag <ms>   send lag (at the SLO's percentile) beyond which a step is the generator's, not the service's (default: the
                        search's own, a quarter of the SLO's tightest threshold, 10-100 ms). On a machine shared with other
                        work the scheduler alone delays sends by tens of ms; lag counts in every latency the
                        SLO judges, so a looser bound never lets a step pass on the generator's lateness
  --image <ref>         a reference image already built (default: the repository's Dockerfile, built
                        when these sources changed, as --target container does)
  --report-dir <dir>    where capacity-replicas.json and .md go (default reports/capacity-replicas)
  --quiet               no line per step on stderr
  -h, --help            this help

Needs podman (scripts/setup-containers.sh, scripts/build-base-image.sh). Docker users: docs/capacity-replicas.md.
${exitStatus('both searches bracketed an SLO break: both rates and the ratio are reported', '(not used: the ratio is a measurement, not a verdict)', 'no sound answer from a search (a generator, cap or time bound: why, and what to change)')}`;

const fail = (message: string): never => {
  throw new UsageError(message);
};

function readOptions() {
  const { values } = parseCommandLine(USAGE, {
    cpus: { type: 'string' }, 'cpu-period': { type: 'string' }, scenario: { type: 'string' }, slo: { type: 'string' }, 'max-time': { type: 'string' }, 'max-rate': { type: 'string' },
    'start-rate': { type: 'string' }, tolerance: { type: 'string' }, warmup: { type: 'string' }, window: { type: 'string' }, 'max-window': { type: 'string' },
    connections: { type: 'string' }, 'max-send-lag': { type: 'string' }, image: { type: 'string' }, 'report-dir': { type: 'string' }, quiet: { type: 'boolean' },
  });
  const scenario = scenarioByName(values.scenario ?? 'tools-list') ?? fail(`unknown scenario "${values.scenario}"; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  let slo: Slo;
  try {
    slo = parseSlo(values.slo ?? DEFAULT_SLO);
  } catch (err) {
    return fail(`--slo: ${(err as Error).message}`);
  }
  const problem = termsProblem(slo, scenario.name, scenario.requests.some((r) => r.streaming));
  if (problem) fail(problem);
  const maxRate = numberOption('--max-rate', values['max-rate'], { min: 1, max: 20_000, fallback: 2000 });
  const startRate = numberOption('--start-rate', values['start-rate'], { min: 0.5, max: maxRate, fallback: Math.min(50, maxRate) });
  const windowS = numberOption('--window', values.window, { min: 0.2, max: 120, fallback: 1 });
  const maxWindowS = numberOption('--max-window', values['max-window'], { min: windowS, max: 600, fallback: 10 });
  const dir = values['report-dir'] ?? 'reports/capacity-replicas';
  // `npm run` runs in the package folder: a relative folder is where the person typed the command.
  const base = process.env.npm_lifecycle_event === 'capacity:replicas' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();
  return {
    cpus: numberOption('--cpus', values.cpus, { min: 0.01, max: 64, fallback: DEFAULT_CPUS }),
    cpuPeriodMs: numberOption('--cpu-period', values['cpu-period'], { min: 1, max: 1000, fallback: DEFAULT_PERIOD_MS }),
    scenario, slo, maxRate, startRate, windowS, maxWindowS,
    maxTimeS: numberOption('--max-time', values['max-time'], { min: 5, max: 3600, fallback: 120 }),
    tolerance: numberOption('--tolerance', values.tolerance, { min: 0.5, max: 50, fallback: 5 }) / 100,
    warmupS: numberOption('--warmup', values.warmup, { min: 0, max: 60, fallback: 1 }),
    connections: numberOption('--connections', values.connections, { integer: true, min: 1, max: 4096, fallback: 256 }),
    maxSendLagMs: numberOption('--max-send-lag', values['max-send-lag'], { min: 1, max: 1000 }),
    image: values.image,
    reportDir: resolve(base, dir),
    quiet: values.quiet ?? false,
  };
}

const options = readCommandLine({ usage: USAGE }, readOptions);
let secrets = new Secrets();
const runId = `capreplicas-${process.pid}-${randomBytes(3).toString('hex')}`;
const say = (line: string) => process.stderr.write(`${scrubText(line, secrets)}\n`);

// Whatever ends the run, nothing it started stays: the exit hook removes by label, synchronously.
process.on('exit', () => removeRunSync(runId));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    say(`capacity-replicas: ${signal}: removing this run's containers`);
    killAllChildren();
    process.exit(signal === 'SIGINT' ? 130 : 143); // the exit hook removes them
  });
}

/** One setup: started, a key bootstrapped through the balancer, searched, removed. */
async function measure(replicas: number, image: string): Promise<{ result: SetupResult; report: CapacityReport | null }> {
  const label = replicas === 1 ? 'one replica' : 'two replicas';
  const t = performance.now();
  const set = await startReplicaSet({
    image, replicas, cpus: options.cpus, cpuPeriodUs: Math.round(options.cpuPeriodMs * 1000), runId, config: UNTHROTTLED, log: (l) => say(`${label}: ${l}`),
  });
  const startupS = Math.round((performance.now() - t) / 100) / 10;
  try {
    const { apiKey } = await bootstrapKey(set.baseUrl, `capacity-replicas ${label}`, 10_000);
    secrets = secrets.with({ values: [apiKey] });
    const report = await runCapacity({
      target: { kind: 'container', baseUrl: set.baseUrl, mcpUrl: `${set.baseUrl}${MCP_PATH}`, apiKey, description: `${label} (--cpus ${options.cpus} each) behind the balancer at ${set.baseUrl}`, serverStats: set.serverStats },
      scenarios: [options.scenario], slos: new Map([[options.scenario.name, options.slo]]),
      maxRate: options.maxRate, startRate: options.startRate, tolerance: options.tolerance, arrivals: 'constant', seed: 1,
      warmupS: options.warmupS, windowS: options.windowS, maxWindowS: options.maxWindowS, timeoutS: 10, connections: options.connections,
      calibrate: true, overload: false, soakFraction: 0.8, maxTimeS: options.maxTimeS,
      ...(options.maxSendLagMs !== undefined && { bounds: { lagBoundMs: options.maxSendLagMs } }),
      ...(!options.quiet && { log: (l: string) => say(`${label}: ${l}`) }),
    });
    return { result: setupResult(replicas, options.cpus, report, startupS), report };
  } finally {
    await set.close();
    say(`${label}: containers, network and volume removed`);
  }
}

await main({ usage: USAGE, scrub: (text) => scrubText(text, secrets) }, async () => {
  const started = new Date();
  const t0 = performance.now();
  let image = options.image;
  if (!image) {
    // The image build talks to the engine's API; the runs themselves use the podman command.
    const engine = await ensureContainerEngine({ log: (m) => say(`capacity-replicas: ${m}`) });
    process.env.DOCKER_HOST = engine.dockerHost;
    try {
      image = await ensureReferenceImage((m) => say(`capacity-replicas: ${m}`));
    } finally {
      await engine.stop();
    }
  }
  const budgetS = 2 * (options.maxTimeS + SETUP_ALLOWANCE_S);
  setTimeout(() => {
    say(`error: capacity-replicas did not finish within ${budgetS} s; removing its containers`);
    killAllChildren();
    process.exit(2);
  }, budgetS * 1000).unref();
  say(`capacity-replicas: run ${runId} (label ${RUN_LABEL}), image ${image}, --cpus ${options.cpus} per replica, ${options.scenario.name}, SLO ${options.slo.text}`);

  const one = await measure(1, image);
  const two = await measure(2, image);
  const report = replicasReport({
    startedAt: started, durationS: Math.round((performance.now() - t0) / 100) / 10, version: packageInfo().version,
    scenario: options.scenario.name, slo: options.slo.text, cpus: options.cpus, image,
    one: one.result, two: two.result, runs: { one: one.report, two: two.report },
  });
  mkdirSync(options.reportDir, { recursive: true });
  writeFileSync(join(options.reportDir, 'capacity-replicas.json'), scrubText(`${JSON.stringify(report, null, 2)}\n`, secrets));
  writeFileSync(join(options.reportDir, 'capacity-replicas.md'), scrubText(renderMarkdown(report), secrets));
  for (const line of headline(report)) console.log(line);
  for (const f of report.findings) console.log(`finding: ${f}`);
  console.log(`reports: ${join(options.reportDir, 'capacity-replicas.json')}, capacity-replicas.md (${report.durationS} s)`);
  if (report.exitCode === 2) say(`error: no sound answer: ${report.noAnswer}`);
  return report.exitCode;
});
