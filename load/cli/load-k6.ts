/**
 * `npm run load:k6`: the k6 engine. Installs the pinned k6 when missing, prepares the target (announced
 * first, loopback guard), sizes the run under the hard caps, and runs the plain k6 script with every input in
 * k6's environment (never its command line: a key on a command line shows in `ps`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from '../../src/kit/command-line.js';
import { exitStatus, main } from '../../src/kit/main.js';
import { listOption, numberOption, UsageError } from '../../src/kit/options.js';
import { scrubText, Secrets } from '../../src/kit/scrub.js';
import { keyOption, mutantOption, targetOption } from '../../src/cli/shared-options.js';
import { loadSecrets } from '../report/load-report.js';
import { readInputs, scenarioVus, type Inputs } from '../k6/inputs.ts';
import { CAPS, capProblem } from '../safety.js';
import { SCENARIOS } from '../scenarios.js';
import { LOAD_TARGET_KINDS, prepareLoadTarget, type LoadTarget } from '../target.js';

const USAGE = `Usage: npm run load:k6 -- [options]

Runs the k6 scripts of load/k6/ (open-model arrival rate, one k6 scenario per load scenario, thresholds as
gates) and writes k6-summary.json, k6-junit.xml and load-k6.json to the report directory.

Target
  --target embedded|url|container  where to send load (default embedded: the reference server in its own
                          process; url: --base-url; container: the repository's image via testcontainers)
  --base-url <url>        the service's base URL (url target); loopback only unless --allow-remote
  --api-key <key>         a live key (or env MCP_API_KEY); default: one from the bootstrap endpoint
  --allow-remote          allow a non-loopback --base-url (load is traffic someone pays for)
  --mutant <name>         embedded only: a deliberately broken reference (the harness's own tests)

Load
  --scenario <name>       smoke, or a scenario name or comma-separated list (default tools-list):
                          ${SCENARIOS.map((s) => s.name).join(', ')}
                          smoke: tools-list and schedule-preview at 10/s each for 3 s, gated on no error
  --rate <req/s>          arrival rate per scenario (default 100; smoke 10)
  --duration <s>          seconds of load (default 10; smoke 3; at most ${CAPS.durationS})
  --vus <n>               VUs pre-allocated per scenario (default 1.5x rate x expected latency, at least 2)
  --max-vus <n>           VU ceiling per scenario (default 10x rate x expected latency)
  --p99 <ms>              threshold: each scenario's p99 request duration under this (default 2000)

Run
  --report-dir <dir>      where the files go (default reports/latest)
  -h, --help              this help

Caps: rate x duration x scenarios at most ${CAPS.requests} requests; VUs at most ${CAPS.connections} in all.
${exitStatus('all thresholds passed', 'a threshold crossed (k6 exit 99)', 'k6 failing to run')}`;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUTPUT_FILES = ['k6-summary.json', 'k6-junit.xml', 'load-k6.json'] as const;

const fail = (message: string): never => {
  throw new UsageError(message);
};

const OPTION_OF: Record<string, string> = {
  LOAD_SCENARIO: '--scenario', LOAD_RATE: '--rate', LOAD_DURATION: '--duration', LOAD_VUS: '--vus', LOAD_MAX_VUS: '--max-vus', LOAD_P99_MS: '--p99',
};

/** The command line, every value checked (on the script's own reading of it) before any traffic. */
function readOptions() {
  const { values } = parseCommandLine(USAGE, {
    target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'allow-remote': { type: 'boolean' },
    mutant: { type: 'string' }, scenario: { type: 'string' }, rate: { type: 'string' }, duration: { type: 'string' },
    vus: { type: 'string' }, 'max-vus': { type: 'string' }, p99: { type: 'string' }, 'report-dir': { type: 'string' },
  });
  const apiKey = keyOption(values, 'api-key');
  secrets = loadSecrets({ apiKey, baseUrl: values['base-url'] });
  const { kind, baseUrl } = targetOption(values, { kinds: LOAD_TARGET_KINDS, baseUrlKinds: ['url'] });
  const mutant = mutantOption(values.mutant, kind, 'load');
  const scenario = listOption('--scenario', values.scenario, 'scenario name (or smoke)')?.join(',');
  numberOption('--rate', values.rate, { positive: true });
  numberOption('--duration', values.duration, { min: 1, max: CAPS.durationS, unit: 'seconds' });
  numberOption('--vus', values.vus, { integer: true, min: 1, max: CAPS.connections });
  numberOption('--max-vus', values['max-vus'], { integer: true, min: 1, max: CAPS.connections });
  numberOption('--p99', values.p99, { positive: true, unit: 'milliseconds' });

  /** The script's inputs, except the target's URL and key (added once the target is up): checked strings, as k6 reads them. */
  const loadEnv: Record<string, string> = {
    LOAD_SCENARIO: scenario ?? 'tools-list',
    ...(values.rate !== undefined && { LOAD_RATE: values.rate }),
    ...(values.duration !== undefined && { LOAD_DURATION: values.duration }),
    ...(values.vus !== undefined && { LOAD_VUS: values.vus }),
    ...(values['max-vus'] !== undefined && { LOAD_MAX_VUS: values['max-vus'] }),
    ...(values.p99 !== undefined && { LOAD_P99_MS: values.p99 }),
    LOAD_TARGET_KIND: kind,
  };
  // The script's own reading of the inputs, so that the caps are checked on exactly what k6 will run.
  let inputs: Inputs;
  try {
    inputs = readInputs({ ...loadEnv, MCP_BASE_URL: 'http://127.0.0.1', MCP_API_KEY: 'placeholder' });
  } catch (err) {
    return fail((err as Error).message.replace(/\b(LOAD_[A-Z0-9_]+)\b/g, (name) => OPTION_OF[name] ?? name));
  }
  const n = inputs.scenarios.length;
  const problem =
    capProblem('--rate x scenarios', inputs.ratePerScenario * n, 0, CAPS.rate) ??
    capProblem('--max-vus x scenarios', inputs.scenarios.reduce((sum, s) => sum + scenarioVus(inputs, s).maxVus, 0), 1, CAPS.connections) ??
    capProblem('requests (--rate x --duration x scenarios)', Math.ceil(inputs.ratePerScenario * inputs.durationS * n), 1, CAPS.requests);
  if (problem) fail(problem);
  return {
    kind, baseUrl, apiKey, allowRemote: values['allow-remote'] ?? false, mutant, loadEnv, inputs,
    reportDir: resolve(values['report-dir'] ?? 'reports/latest'),
    script: join(ROOT, 'load', 'k6', inputs.smoke ? 'smoke.ts' : 'stateless-post.ts'),
  };
}
type Options = ReturnType<typeof readOptions>;

/** The pinned k6, built by the project script when missing or another version (a no-op otherwise). */
function ensureK6(): string {
  const result = spawnSync('bash', [join(ROOT, 'scripts', 'install-k6.sh')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const path = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !existsSync(path)) {
    throw new Error('k6 is not installed and scripts/install-k6.sh could not build it');
  }
  return path;
}

/**
 * k6's environment: the parent's, less anything that would steer k6 or the script behind the caps' back
 * (K6_* options such as K6_DURATION, inherited LOAD_*, MCP_* or SUMMARY_DIR), plus this run's inputs.
 */
function k6Environment(o: Options, target: LoadTarget): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(K6_|LOAD_|MCP_|SUMMARY_DIR$)/.test(name)) env[name] = value;
  }
  return {
    ...env,
    ...o.loadEnv,
    MCP_BASE_URL: target.baseUrl,
    MCP_API_KEY: target.apiKey,
    SUMMARY_DIR: o.reportDir,
    // No anonymous usage report to Grafana from a test run.
    K6_NO_USAGE_REPORT: 'true',
  };
}

/** Runs k6 with its output streamed; resolves with its exit code (null when killed by a signal). */
function runK6(k6: string, o: Options, target: LoadTarget): Promise<number | null> {
  // --address '': no REST API listener (several runs on one machine would fight over port 6565).
  const child = spawn(k6, ['run', '--address', '', o.script], { cwd: ROOT, env: k6Environment(o, target), stdio: ['ignore', 'inherit', 'inherit'] });
  // Ctrl-C reaches k6 too (same process group): k6 stops and still writes its summary. SIGTERM is passed on.
  const onSigint = () => console.error('load:k6: interrupted, waiting for k6 to write its summary');
  const onSigterm = () => child.kill('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  return new Promise((resolveExit, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      resolveExit(code);
    });
  });
}

/** Runs k6 on the target; returns the verdict's exit code (k6 not running to its end is an error, not a verdict). */
async function run(o: Options): Promise<number> {
  const k6 = ensureK6();
  const target = await prepareLoadTarget({ kind: o.kind, baseUrl: o.baseUrl, apiKey: o.apiKey, allowRemote: o.allowRemote, mutant: o.mutant, log: (line) => console.error(scrubText(line, secrets)) });
  secrets = loadSecrets({ apiKey: target.apiKey, baseUrl: o.baseUrl, admin: target.admin });
  let code: number | null;
  try {
    mkdirSync(o.reportDir, { recursive: true });
    // A stale file from an earlier run must not pass for this run's result.
    for (const file of OUTPUT_FILES) rmSync(join(o.reportDir, file), { force: true });
    console.error(`load:k6: ${o.inputs.scenarios.map((s) => s.name).join(', ')} at ${o.inputs.ratePerScenario}/s each for ${o.inputs.durationS} s (${o.script.slice(ROOT.length)})`);
    code = await runK6(k6, o, target);
  } finally {
    await target.close();
  }

  const written = OUTPUT_FILES.map((file) => join(o.reportDir, file)).filter((path) => existsSync(path));
  if (written.length > 0) console.log(`reports:\n${written.map((path) => `  ${path}`).join('\n')}`);
  // "A failed threshold exits 99"; any other failure means k6 could not run the test: no verdict.
  if (code === 0 && written.length === OUTPUT_FILES.length) return 0;
  if (code === 99 && written.length === OUTPUT_FILES.length) {
    console.error('load:k6: a threshold was crossed (see k6-junit.xml)');
    return 1;
  }
  throw new Error(`k6 ${code === null ? 'was killed' : `exited ${code}`}${written.length < OUTPUT_FILES.length ? ' without writing its summary files' : ''}`);
}

// Error lines pass the load reports' scrubber: a --base-url may carry credentials, an error may quote the key.
let secrets = new Secrets();
await main({ usage: USAGE, scrub: (text) => scrubText(text, secrets) }, () => run(readOptions()));
