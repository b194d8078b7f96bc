/**
 * npm run probe:rate-limit -- [options]: finds a deployment's real rate limits per key (sustained rate,
 * burst, limiter shape), checks Retry-After and isolation between keys, and writes probe.json, probe.md,
 * probe.html and probe-junit.xml. See USAGE.
 */
import { join, resolve } from 'node:path';
import { LOAD_MUTANTS, MUTANTS } from '../../fixtures/mutants/index.js';
import { loadConfigFile, resolveConfig, type ConfigOverrides } from '../../fixtures/reference-server/config.js';
import { TargetError } from '../../src/targets/target.js';
import { parseCommandLine, usageError } from '../../src/kit/command-line.js';
import { CAPS, capProblem, UnsafeTargetError } from '../safety.js';
import { LOAD_TARGET_KINDS, prepareLoadTarget, type LoadTarget, type LoadTargetKind } from '../target.js';
import { KeyRing } from '../probe/keys.js';
import { ProbeUnreachableError, runProbe } from '../probe/probe.js';
import { writeProbeReports } from '../probe/probe-report.js';
import { writeReportHtml } from '../../src/report-folder/compose.js';
import { scrubText, Secrets } from '../../src/kit/scrub.js';

/** The embedded target's limits when no --reference-config is given: known numbers for the probe to find. */
export const PROBE_REFERENCE: ConfigOverrides = { plans: { probe: { ratePerSecond: 50, burst: 20, maxBlocks: 10 } }, bootstrapPlan: 'probe' };

const USAGE = `Usage: npm run probe:rate-limit -- [options]

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
  --report-dir <dir>      where probe.json, probe.md, probe.html, probe-junit.xml go (default reports/probe)
  -h, --help              this help

Exit status: 0 every verdict holds, 1 a verdict fails, 2 bad usage or an unreachable target.
Keys are never printed or written; prefer the environment variables to --api-key (process lists show arguments).`;

const fail = (message: string): never => usageError(USAGE, message);

const { values } = parseCommandLine(USAGE, {
  target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'sibling-key': { type: 'string' }, 'other-key': { type: 'string' },
  plan: { type: 'string' }, 'reference-config': { type: 'string' }, 'allow-remote': { type: 'boolean' },
  'expect-rate': { type: 'string' }, 'expect-burst': { type: 'string' }, tolerance: { type: 'string' },
  'max-time': { type: 'string' }, 'max-rate': { type: 'string' }, 'max-requests': { type: 'string' }, 'max-burst': { type: 'string' },
  'start-rate': { type: 'string' }, 'step-time': { type: 'string' }, 'refine-steps': { type: 'string' },
  'report-dir': { type: 'string' }, mutant: { type: 'string' },
});

const kind = (values.target ?? (values['base-url'] ? 'url' : 'embedded')) as LoadTargetKind;
if (!LOAD_TARGET_KINDS.includes(kind)) fail(`--target must be one of ${LOAD_TARGET_KINDS.join(', ')} (got "${values.target}")`);
if (kind === 'url' && !values['base-url']) fail('--target url needs --base-url');
if (kind !== 'url' && values['base-url']) fail(`--target ${kind} runs its own server: it takes no --base-url`);
if (values['base-url'] !== undefined && !(URL.canParse(values['base-url']) && /^https?:$/.test(new URL(values['base-url']).protocol))) fail(`--base-url must be an http(s) URL (got "${values['base-url']}")`);
const apiKey = values['api-key'] ?? process.env.MCP_API_KEY;
const siblingKeyOption = values['sibling-key'] ?? process.env.MCP_SIBLING_KEY;
const otherKeyOption = values['other-key'] ?? process.env.MCP_OTHER_KEY;
if (kind !== 'url' && (values['api-key'] || values['sibling-key'] || values['other-key'])) fail(`--target ${kind} mints its own keys: --api-key, --sibling-key and --other-key are for --target url`);
if (kind === 'url' && (values.plan || values['reference-config'])) fail('--plan and --reference-config configure the embedded or container reference server; a url target has the limits it has');
if (values.mutant && kind !== 'embedded') fail('--mutant works with the embedded target only');
if (values.mutant) {
  const known = [...MUTANTS, ...LOAD_MUTANTS].map((m) => m.name);
  if (!known.includes(values.mutant)) fail(`unknown mutant "${values.mutant}"; rate-limit mutants: ${LOAD_MUTANTS.map((m) => m.name).join(', ')}`);
}

function numberOption(name: string, fallback: number, min: number, max: number, integer = false): number {
  const raw = values[name as keyof typeof values] as string | undefined;
  const value = raw === undefined ? fallback : Number(raw);
  if (raw !== undefined && (raw.trim() === '' || (integer && !Number.isInteger(value)))) fail(`--${name} must be ${integer ? 'an integer' : 'a number'} (got "${raw}")`);
  const problem = capProblem(`--${name}`, value, min, max);
  if (problem) fail(problem);
  return value;
}
function optionalNumber(name: string, min: number, max: number): number | undefined {
  return values[name as keyof typeof values] === undefined ? undefined : numberOption(name, 0, min, max);
}

const maxTimeS = numberOption('max-time', 60, 5, CAPS.durationS);
const maxRate = numberOption('max-rate', 2000, 0.1, CAPS.rate);
const maxRequests = numberOption('max-requests', 100_000, 100, CAPS.requests, true);
const maxBurst = numberOption('max-burst', 2000, 10, CAPS.requests, true);
const startRate = numberOption('start-rate', Math.min(5, maxRate), 0.1, CAPS.rate);
if (startRate > maxRate) fail(`--start-rate (${startRate}) is above --max-rate (${maxRate})`);
const stepTimeS = numberOption('step-time', 2, 0.5, 60);
const refineSteps = numberOption('refine-steps', 2, 0, 10, true);
const tolerancePct = numberOption('tolerance', 10, 0, 100);
const expectRate = optionalNumber('expect-rate', 0.001, CAPS.rate);
const expectBurst = optionalNumber('expect-burst', 1, CAPS.requests);

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

let ring: KeyRing | undefined;
let target: LoadTarget | undefined;
/** Every key the probe holds so far (the ring learns keys as it goes) and its URL's credentials. */
const secrets = () => Secrets.from({
  values: [apiKey, siblingKeyOption, otherKeyOption, target?.apiKey, target?.admin?.token, ...(ring?.keys ?? [])],
  urls: [values['base-url'], target?.admin?.url],
});
const redact = (text: string) => scrubText(text, secrets());
const log = (line: string) => console.error(redact(line));

let exitCode = 2;
try {
  target = await prepareLoadTarget({
    kind,
    ...(values['base-url'] && { baseUrl: values['base-url'] }),
    ...(kind === 'url' && apiKey && { apiKey }),
    allowRemote: values['allow-remote'] ?? false,
    ...(reference && { reference }),
    ...(values.mutant && { mutant: values.mutant }),
    log,
  });
  ring = new KeyRing(target, { plan: plan ?? '', ...(siblingKeyOption && { siblingKey: siblingKeyOption }), ...(otherKeyOption && { otherKey: otherKeyOption }) });
  log(`probe: ${plan ? `plan "${plan}"${configured ? ` (configured ${configured.ratePerSecond} req/s, burst ${configured.burst})` : ''}, ` : ''}budget ${maxTimeS} s, offered rates ${startRate} to ${maxRate} req/s, at most ${maxRequests} requests`);
  const result = await runProbe({
    target, keys: ring, ...(plan !== undefined && { plan }), ...(configured && { configured }),
    maxTimeS, maxRate, startRate, stepTimeS, refineSteps, maxRequests, maxBurst, tolerancePct,
    ...(expectRate !== undefined && { expectRate }), ...(expectBurst !== undefined && { expectBurst }),
    log,
  });
  const dir = resolve(values['report-dir'] ?? 'reports/probe');
  // Printed from the scrubbed copy the reports were written from.
  const { files, result: clean } = writeProbeReports(result, dir, secrets());
  // The folder's report.html (a conformance run's page) gets the probe's section: src/report-folder composes it.
  try {
    const html = writeReportHtml(dir, secrets());
    if (html) files.push(html);
  } catch (err) {
    log(`probe: report.html not updated (${(err as Error).message})`);
  }
  const out = [
    ...clean.findings,
    '',
    ...clean.verdicts.map((v) => `${v.status === 'fail' ? 'FAIL' : v.status.padEnd(4)}  ${v.id}: ${v.message}`),
    '',
    `${clean.exitCode ? 'FAIL' : 'PASS'}: ${clean.requests} requests in ${clean.durationS} s`,
    `reports:\n${files.map((f) => `  ${join(f)}`).join('\n')}`,
  ];
  console.log(redact(out.join('\n')));
  exitCode = result.exitCode;
} catch (err) {
  if (err instanceof TargetError || err instanceof UnsafeTargetError || err instanceof ProbeUnreachableError) {
    console.error(redact(`error: ${err.message}`));
    exitCode = 2;
  } else {
    console.error(redact(`error: ${(err as Error).stack ?? String(err)}`));
    exitCode = 2;
  }
} finally {
  await target?.close();
}
process.exit(exitCode);
