/**
 * `npm run probe:rate-limit`'s command line: its usage text and the reading of its options, every value
 * checked before any traffic. Apart from the command (src/cli/probe-rate-limit.ts) so that the tests can
 * judge bad input without a process per case.
 */
import { loadConfigFile, resolveConfig, type ConfigOverrides } from '../../service/reference-server/config.js';
import { parseCommandLine } from '../kit/command-line.js';
import { exitStatus } from '../kit/main.js';
import { numberOption, UsageError } from '../kit/options.js';
import { Secrets } from '../kit/scrub.js';
import { keyOption, mutantOption, targetOption } from './shared-options.js';
import { CAPS } from '../../load/safety.js';
import { LOAD_TARGET_KINDS } from '../../load/target.js';
import { invocation, reportDirOption } from '../kit/invocation.js';

/** The embedded target's limits when no --reference-config is given: known numbers for the probe to find. */
export const PROBE_REFERENCE: ConfigOverrides = { plans: { probe: { ratePerSecond: 50, burst: 20, maxBlocks: 10 } }, bootstrapPlan: 'probe' };

export const PROBE_USAGE = `Usage: ${invocation('probe:rate-limit')} [options]

Steps the request rate up per key until 429s appear, and reports the sustained limit and the burst,
whether Retry-After is present and honest, the RateLimit header fields, and whether throttling one key
touches another key of the same or another workspace. Requests are tools/list POSTs, sent open-model
(at scheduled times, whatever the replies).

Target
  --target embedded|url|container  where to probe (default embedded, or url with --base-url). embedded: the
                          reference server in a child process, with known limits: plan "probe" at
                          50 req/s, burst 20 (${JSON.stringify(PROBE_REFERENCE.plans)}), or --reference-config
  --base-url <url>        the service's base URL (url target)
  --api-key <key>         the key to probe (or env MCP_API_KEY; default: one from the bootstrap endpoint)
  --sibling-key <key>     another key of --api-key's workspace (or env MCP_SIBLING_KEY), for isolation
  --other-key <key>       a key of another workspace (or env MCP_OTHER_KEY), for isolation
  --plan <name>           embedded/container: the plan whose limits are probed (default the config's
                          bootstrapPlan, "probe" by default)
  --reference-config <file.json>  embedded/container: reference-server config overrides (plans, bootstrapPlan)
  --allow-remote          allow a non-loopback target (the probe's traffic is someone's bill)

Gates (exit 1 when one fails)
  --expect-rate <r>       the sustained limit must be r req/s, within --tolerance
  --expect-burst <b>      the burst must be b requests, within --tolerance
  --tolerance <pct>       default 10

Bounds
  --max-time <s>          time budget of the probe's traffic (default 60, at most ${CAPS.durationS})
  --max-rate <r>          highest offered rate, req/s (default 2000, at most ${CAPS.rate})
  --max-requests <n>      requests in all (default 100000, at most ${CAPS.requests})
  --max-burst <n>         longest back-to-back volley: a larger burst is not found (default 2000)
  --start-rate <r>        first step's offered rate (default 5); steps double up to the first throttled one
  --step-time <s>         duration of one step (default 2; a step sends at least 5 requests)
  --refine-steps <n>      bisection steps between the last clean and the first throttled step (default 2)

Output
  --report-dir <dir>      where probe.json, probe.md, probe.html, probe-junit.xml go (default: env HARNESS_REPORT_DIR, else reports/probe)
  --quiet                 no progress lines (by default stderr gets one every 2 s: elapsed, requests
                          sent, 429s and errors so far, beside each step's line)
  -h, --help              this help

${exitStatus('every verdict holds', 'a verdict fails')}
Keys are never printed or written; prefer the environment variables to --api-key (process lists show arguments).`;

const fail = (message: string): never => {
  throw new UsageError(message);
};

/**
 * The command line (`args`, default process.argv), every value checked before any traffic. `onSecrets` gets
 * the keys and URL to scrub as soon as they are read: a usage error may quote them.
 */
export function readProbeOptions(args: string[] | undefined, onSecrets: (secrets: Secrets) => void) {
  const { values } = parseCommandLine(PROBE_USAGE, {
    target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'sibling-key': { type: 'string' }, 'other-key': { type: 'string' },
    plan: { type: 'string' }, 'reference-config': { type: 'string' }, 'allow-remote': { type: 'boolean' },
    'expect-rate': { type: 'string' }, 'expect-burst': { type: 'string' }, tolerance: { type: 'string' },
    'max-time': { type: 'string' }, 'max-rate': { type: 'string' }, 'max-requests': { type: 'string' }, 'max-burst': { type: 'string' },
    'start-rate': { type: 'string' }, 'step-time': { type: 'string' }, 'refine-steps': { type: 'string' },
    'report-dir': { type: 'string' }, mutant: { type: 'string' }, quiet: { type: 'boolean' },
  }, { args });
  const apiKey = keyOption(values, 'api-key');
  const siblingKey = keyOption(values, 'sibling-key');
  const otherKey = keyOption(values, 'other-key');
  onSecrets(Secrets.from({ values: [apiKey, siblingKey, otherKey], urls: [values['base-url']] }));
  const { kind, baseUrl } = targetOption(values, { kinds: LOAD_TARGET_KINDS, baseUrlKinds: ['url'] });
  if (kind !== 'url' && (values['api-key'] || values['sibling-key'] || values['other-key'])) fail(`--target ${kind} mints its own keys: --api-key, --sibling-key and --other-key are for --target url`);
  if (kind === 'url' && (values.plan || values['reference-config'])) fail('--plan and --reference-config configure the embedded or container reference server; a url target has the limits it has');
  const mutant = mutantOption(values.mutant, kind, 'load');

  const maxTimeS = numberOption('--max-time', values['max-time'], { min: 5, max: CAPS.durationS, unit: 'seconds', fallback: 60 });
  const maxRate = numberOption('--max-rate', values['max-rate'], { min: 0.1, max: CAPS.rate, fallback: 2000 });
  const maxRequests = numberOption('--max-requests', values['max-requests'], { integer: true, min: 100, max: CAPS.requests, fallback: 100_000 });
  const maxBurst = numberOption('--max-burst', values['max-burst'], { integer: true, min: 10, max: CAPS.requests, fallback: 2000 });
  const startRate = numberOption('--start-rate', values['start-rate'], { min: 0.1, max: CAPS.rate, fallback: Math.min(5, maxRate) });
  if (startRate > maxRate) fail(`--start-rate (${startRate}) is above --max-rate (${maxRate})`);
  const stepTimeS = numberOption('--step-time', values['step-time'], { min: 0.5, max: 60, unit: 'seconds', fallback: 2 });
  const refineSteps = numberOption('--refine-steps', values['refine-steps'], { integer: true, min: 0, max: 10, fallback: 2 });
  const tolerancePct = numberOption('--tolerance', values.tolerance, { min: 0, max: 100, unit: 'percent', fallback: 10 });
  const expectRate = numberOption('--expect-rate', values['expect-rate'], { min: 0.001, max: CAPS.rate });
  const expectBurst = numberOption('--expect-burst', values['expect-burst'], { min: 1, max: CAPS.requests });

  let reference: ConfigOverrides | undefined;
  let plan: string | undefined;
  let configured: { ratePerSecond: number; burst: number } | undefined;
  if (kind !== 'url') {
    let overrides: ConfigOverrides = PROBE_REFERENCE;
    if (values['reference-config']) {
      try {
        overrides = loadConfigFile(values['reference-config']);
      } catch (err) {
        fail((err as Error).message);
      }
    }
    plan = values.plan ?? overrides.bootstrapPlan ?? 'probe';
    // The plan under test is the bootstrap plan too: the target's own key (and a container's keys) are on it.
    reference = { ...overrides, bootstrapPlan: plan };
    try {
      const resolved = resolveConfig(reference);
      const limits = resolved.plans[plan]!;
      configured = { ratePerSecond: limits.ratePerSecond, burst: limits.burst };
    } catch (err) {
      fail(`reference config: ${(err as Error).message}`);
    }
  }
  return {
    kind, baseUrl, apiKey, siblingKey, otherKey, allowRemote: values['allow-remote'] ?? false, mutant, reference, plan, configured,
    maxTimeS, maxRate, maxRequests, maxBurst, startRate, stepTimeS, refineSteps, tolerancePct, expectRate, expectBurst,
    reportDir: reportDirOption(values['report-dir'], 'reports/probe'),
    quiet: values.quiet ?? false,
  };
}

export type ProbeOptions = ReturnType<typeof readProbeOptions>;
