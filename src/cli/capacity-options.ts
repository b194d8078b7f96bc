/**
 * The capacity command's line: its usage text and the reading of its options, every value checked before any
 * traffic. Apart from the command (src/cli/capacity.ts) so that the tests judge bad input without a process.
 */
import { parseCommandLine } from '../kit/command-line.js';
import { exitStatus } from '../kit/main.js';
import { enumOption, listOption, numberOption, UsageError } from '../kit/options.js';
import { Secrets } from '../kit/scrub.js';
import { keyOption, mutantOption, seedOption, targetOption } from './shared-options.js';
import { invocation, reportDirOption } from '../kit/invocation.js';
import { CAPS } from '../../load/safety.js';
import { LOAD_TARGET_KINDS } from '../../load/target.js';
import { SCENARIOS, scenarioByName, type Scenario } from '../../load/scenarios.js';
import { DEFAULT_SLO, parseSlo, readSloFile, termsProblem, type Slo } from '../../load/capacity/slo.js';
import { DRIVERS } from '../../load/capacity/runners.js';

export const DEFAULT_CAPACITY_SCENARIOS = ['tools-list'];

export const CAPACITY_USAGE = `Usage: ${invocation('capacity')} [options]

Finds, per scenario, the highest offered rate at which the service holds an SLO (the sustained rate) and
the lowest at which it broke, and says which bound the search met: the SLO (a capacity), a rate limit (429s
are never capacity), the generator (this machine could not offer more: "at least"), the cap or the time.
Requests leave at planned times whatever the replies (an open model), and latency is measured from the
planned send time, so a stalling server cannot hide its stall. Steps go up x2, then bisect to --tolerance;
each step is judged in its own windows with enough samples for its percentiles, and confirmed.

Target
  --target embedded|url|container  where to search (default embedded, or url with --base-url); the embedded
                          reference runs in its own process, with no rate limit on its bootstrapped key
  --base-url <url>        the service's base URL (url target)
  --api-key <key>         the key to load with (or env MCP_API_KEY; default: one from the bootstrap endpoint)
  --allow-remote          allow a non-loopback target (a capacity search is heavy traffic on someone's bill)

Search
  --scenario <name>       repeatable or comma-separated (default ${DEFAULT_CAPACITY_SCENARIOS.join(', ')}); one of
                          ${SCENARIOS.map((s) => s.name).join(', ')}
  --slo <terms>           default '${DEFAULT_SLO}'. Terms: pNN<=T (latency from the planned send),
                          ttfp-pNN<=T and ttfr-pNN<=T (streaming: first progress, final result),
                          errors<=N%; T in us, ms or s
  --slo-file <file.json>  per scenario: {"default": "...", "schedule-preview": "ttfr-p99<=2s,errors<=1%"}
  --max-rate <r>          the cap, req/s (default 2000, at most ${CAPS.rate})
  --start-rate <r>        the first step, req/s (default 50); steps go down from it when it does not hold
  --tolerance <pct>       bisection ends when the bracket is this narrow (default 5)
  --driver undici|k6      what sends the steps (default undici: this process). k6: one k6 run per step
                          (load/k6/capacity-step.ts, constant-arrival-rate), judged the same way; an
                          iteration k6 drops (no free VU) makes a step invalid; k6 cannot time the first
                          progress notification (no ttfp terms) nor send Poisson arrivals
  --arrivals constant|poisson  arrival process (default constant)
  --seed <n>              Poisson arrivals' seed (printed when not given)
  --warmup <s>            each step's warm-up before its measured window (default 1)
  --window <s>            shortest measured window (default 1; longer at low rates: enough samples
                          for the SLO's terms to pass, e.g. 384 for a p99 or errors<=1%, 3,838 for a p99.9)
  --max-window <s>        a step that cannot decide extends its window up to this (default 10; at least
                          one extension)
  --timeout <s>           a request not complete by then is an error at that latency (default 10)
  --connections <n>       the undici driver's connection pool, or k6's most VUs per step (default 512,
                          at most ${CAPS.connections})
  --no-calibrate          skip measuring the generator's own ceiling against a no-op endpoint first
  --expect-rate <r>       exit 1 when a scenario's sustained rate is below r req/s

After the search
  --no-overload           skip the step at 1.5x the sustained rate and the recovery at 0.5x
  --soak <s>              then hold --soak-fraction of the sustained rate for s seconds (at most
                          ${CAPS.durationS}) and flag drift in p99 and the server's memory
  --soak-fraction <f>     default 0.8

Bounds
  --max-time <s>          time budget of the searches (default 240, at most ${CAPS.durationS}); a search
                          that runs out says so (bound "time")

Output
  --report-dir <dir>      where capacity.json, capacity.md, capacity.html, capacity-junit.xml go
                          (default: env HARNESS_REPORT_DIR, else reports/capacity)
  --quiet                 no line per step on stderr
  -h, --help              this help

${exitStatus('every scenario has a sound answer (and --expect-rate holds)', '--expect-rate: a sustained rate below it', 'no sound answer (why, in one line)')}
Keys are never printed or written; prefer MCP_API_KEY to --api-key (process lists show arguments).`;

const fail = (message: string): never => {
  throw new UsageError(message);
};

/** Seconds, as `60`, `60s`, `2m`. */
function secondsOption(name: string, raw: string | undefined, min: number, max: number, fallback: number): number;
function secondsOption(name: string, raw: string | undefined, min: number, max: number): number | undefined;
function secondsOption(name: string, raw: string | undefined, min: number, max: number, fallback?: number): number | undefined {
  if (raw === undefined) return fallback;
  const m = /^(\d+(?:\.\d+)?)\s*(s|m)?$/.exec(raw.trim());
  if (!m) fail(`${name} must be seconds, such as 60, 60s or 2m (got "${raw}")`);
  const s = Number(m![1]) * (m![2] === 'm' ? 60 : 1);
  if (s < min || s > max) fail(`${name} must be from ${min} to ${max} seconds (got ${s})`);
  return s;
}

export function readCapacityOptions(args: string[] | undefined, onSecrets: (secrets: Secrets) => void) {
  const { values } = parseCommandLine(CAPACITY_USAGE, {
    target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'allow-remote': { type: 'boolean' },
    scenario: { type: 'string', multiple: true }, slo: { type: 'string' }, 'slo-file': { type: 'string' },
    'max-rate': { type: 'string' }, 'start-rate': { type: 'string' }, tolerance: { type: 'string' }, driver: { type: 'string' }, arrivals: { type: 'string' }, seed: { type: 'string' },
    warmup: { type: 'string' }, window: { type: 'string' }, 'max-window': { type: 'string' }, timeout: { type: 'string' }, connections: { type: 'string' },
    'no-calibrate': { type: 'boolean' }, 'expect-rate': { type: 'string' }, 'no-overload': { type: 'boolean' }, soak: { type: 'string' }, 'soak-fraction': { type: 'string' },
    'max-time': { type: 'string' }, 'report-dir': { type: 'string' }, quiet: { type: 'boolean' }, mutant: { type: 'string' },
  }, { args });
  const apiKey = keyOption(values, 'api-key');
  onSecrets(Secrets.from({ values: [apiKey], urls: [values['base-url']] }));
  const { kind, baseUrl } = targetOption(values, { kinds: LOAD_TARGET_KINDS, baseUrlKinds: ['url'] });
  if (kind !== 'url' && values['api-key']) fail(`--target ${kind} bootstraps its own key: --api-key is for --target url`);
  const mutant = mutantOption(values.mutant, kind, 'load');

  const names = listOption('--scenario', values.scenario, 'scenario name') ?? DEFAULT_CAPACITY_SCENARIOS;
  const scenarios: Scenario[] = names.map((n) => scenarioByName(n) ?? fail(`unknown scenario "${n}"; known: ${SCENARIOS.map((s) => s.name).join(', ')}`));
  if (values.slo !== undefined && values['slo-file'] !== undefined) fail('--slo and --slo-file: give one (the file has a "default" entry for the scenarios it does not name)');
  let slos: Map<string, Slo>;
  try {
    slos = values['slo-file'] !== undefined
      ? readSloFile(values['slo-file'], names, DEFAULT_SLO)
      : new Map(names.map((n) => [n, parseSlo(values.slo ?? DEFAULT_SLO)]));
  } catch (err) {
    return fail((err as Error).message);
  }
  for (const s of scenarios) {
    const problem = termsProblem(slos.get(s.name)!, s.name, s.requests.some((r) => r.streaming));
    if (problem) fail(problem);
  }

  const maxRate = numberOption('--max-rate', values['max-rate'], { min: 0.5, max: CAPS.rate, fallback: 2000 });
  const startRate = numberOption('--start-rate', values['start-rate'], { min: 0.5, max: CAPS.rate, fallback: Math.min(50, maxRate) });
  if (startRate > maxRate) fail(`--start-rate (${startRate}) is above --max-rate (${maxRate})`);
  const tolerancePct = numberOption('--tolerance', values.tolerance, { min: 0.5, max: 50, unit: 'percent', fallback: 5 });
  const driver = enumOption('--driver', values.driver, DRIVERS) ?? 'undici';
  const arrivals = enumOption('--arrivals', values.arrivals, ['constant', 'poisson'] as const) ?? 'constant';
  if (driver === 'k6') {
    if (arrivals !== 'constant') fail('--driver k6 sends constant arrivals only (k6\'s constant-arrival-rate): leave out --arrivals poisson, or use --driver undici');
    for (const s of scenarios) {
      const ttfp = slos.get(s.name)!.terms.filter((t) => t.kind === 'latency' && t.metric === 'ttfp');
      if (ttfp.length > 0) fail(`--driver k6 cannot judge ${ttfp.map((t) => t.text).join(', ')} (${s.name}): k6 reads a reply whole, so the first progress notification is not observable; judge ttfr, or use --driver undici`);
    }
  }
  const { seed, given: seedGiven } = seedOption(values.seed);
  const warmupS = secondsOption('--warmup', values.warmup, 0, 60, 1);
  const windowS = secondsOption('--window', values.window, 0.2, 120, 1);
  const maxWindowS = secondsOption('--max-window', values['max-window'], 0.2, CAPS.durationS, 10);
  if (maxWindowS < windowS) fail(`--max-window (${maxWindowS} s) is shorter than --window (${windowS} s)`);
  const timeoutS = secondsOption('--timeout', values.timeout, 0.1, 600, 10);
  const connections = numberOption('--connections', values.connections, { integer: true, min: 1, max: CAPS.connections, fallback: 512 });
  const expectRate = numberOption('--expect-rate', values['expect-rate'], { min: 0.001, max: CAPS.rate });
  const soakS = secondsOption('--soak', values.soak, 5, CAPS.durationS);
  const soakFraction = numberOption('--soak-fraction', values['soak-fraction'], { min: 0.05, max: 1, fallback: 0.8 });
  if (values['soak-fraction'] !== undefined && soakS === undefined) fail('--soak-fraction needs --soak <seconds>');
  const maxTimeS = secondsOption('--max-time', values['max-time'], 5, CAPS.durationS, 240);
  return {
    kind, baseUrl, apiKey, allowRemote: values['allow-remote'] ?? false, mutant,
    scenarios, slos, maxRate, startRate, tolerance: tolerancePct / 100, driver, arrivals, seed, seedGiven,
    warmupS, windowS, maxWindowS, timeoutS, connections, calibrate: !values['no-calibrate'], expectRate,
    overload: !values['no-overload'], soakS, soakFraction, maxTimeS,
    reportDir: reportDirOption(values['report-dir'], 'reports/capacity'),
    quiet: values.quiet ?? false,
  };
}

export type CapacityOptions = ReturnType<typeof readCapacityOptions>;
