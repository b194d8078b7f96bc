/**
 * `npm run load:k6`'s command line: its usage text and the reading of its options. Apart from the command
 * (src/cli/load-k6.ts) so that the tests can judge bad input without a process per case.
 */
import { join } from 'node:path';
import { parseCommandLine } from '../kit/command-line.js';
import { exitStatus } from '../kit/main.js';
import { listOption, numberOption, UsageError } from '../kit/options.js';
import type { Secrets } from '../kit/scrub.js';
import { keyOption, mutantOption, targetOption } from './shared-options.js';
import { loadSecrets } from '../../load/report/load-report.js';
import { readInputs, scenarioVus, type Inputs } from '../../load/k6/inputs.ts';
import { CAPS, capProblem } from '../../load/safety.js';
import { SCENARIOS } from '../../load/scenarios.js';
import { LOAD_TARGET_KINDS } from '../../load/target.js';
import { PACKAGE_ROOT } from '../kit/package-root.js';
import { invocation, reportDirOption } from '../kit/invocation.js';

const ROOT = PACKAGE_ROOT;

export const LOAD_K6_USAGE = `Usage: ${invocation('load:k6')} [options]

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
  --report-dir <dir>      where the files go (default: env HARNESS_REPORT_DIR, else reports/latest)
  -h, --help              this help

Caps: rate x duration x scenarios at most ${CAPS.requests} requests; VUs at most ${CAPS.connections} in all.
${exitStatus('all thresholds passed', 'a threshold crossed (k6 exit 99)', 'k6 failing to run')}`;

const fail = (message: string): never => {
  throw new UsageError(message);
};

const OPTION_OF: Record<string, string> = {
  LOAD_SCENARIO: '--scenario', LOAD_RATE: '--rate', LOAD_DURATION: '--duration', LOAD_VUS: '--vus', LOAD_MAX_VUS: '--max-vus', LOAD_P99_MS: '--p99',
};

/**
 * The command line (`args`, default process.argv), every value checked (on the script's own reading of it)
 * before any traffic. `onSecrets` gets the key and URL to scrub as soon as they are read.
 */
export function readLoadK6Options(args: string[] | undefined, onSecrets: (secrets: Secrets) => void) {
  const { values } = parseCommandLine(LOAD_K6_USAGE, {
    target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'allow-remote': { type: 'boolean' },
    mutant: { type: 'string' }, scenario: { type: 'string' }, rate: { type: 'string' }, duration: { type: 'string' },
    vus: { type: 'string' }, 'max-vus': { type: 'string' }, p99: { type: 'string' }, 'report-dir': { type: 'string' },
  }, { args });
  const apiKey = keyOption(values, 'api-key');
  onSecrets(loadSecrets({ apiKey, baseUrl: values['base-url'] }));
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
    reportDir: reportDirOption(values['report-dir'], 'reports/latest'),
    script: join(ROOT, 'load', 'k6', inputs.smoke ? 'smoke.ts' : 'stateless-post.ts'),
  };
}

export type LoadK6Options = ReturnType<typeof readLoadK6Options>;
