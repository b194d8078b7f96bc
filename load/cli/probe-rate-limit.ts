/**
 * npm run probe:rate-limit -- [options]: finds a deployment's real rate limits per key (sustained rate,
 * burst, limiter shape), checks Retry-After and isolation between keys, and writes probe.json, probe.md,
 * probe.html and probe-junit.xml. See USAGE.
 */
import { join, resolve } from 'node:path';
import { loadConfigFile, resolveConfig, type ConfigOverrides } from '../../fixtures/reference-server/config.js';
import { parseCommandLine } from '../../src/kit/command-line.js';
import { exitStatus, main } from '../../src/kit/main.js';
import { numberOption, UsageError } from '../../src/kit/options.js';
import { keyOption, mutantOption, targetOption } from '../../src/cli/shared-options.js';
import { CAPS } from '../safety.js';
import { LOAD_TARGET_KINDS, prepareLoadTarget, type LoadTarget } from '../target.js';
import { KeyRing } from '../probe/keys.js';
import { runProbe, type ProbeSoFar } from '../probe/probe.js';
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
  --quiet                 no progress lines (by default stderr gets one every 2 s: elapsed, requests
                          sent, 429s and errors so far, beside each step's line)
  -h, --help              this help

${exitStatus('every verdict holds', 'a verdict fails')}
Keys are never printed or written; prefer the environment variables to --api-key (process lists show arguments).`;

const fail = (message: string): never => {
  throw new UsageError(message);
};

/** The command line, every value checked before any traffic. */
function readOptions() {
  const { values } = parseCommandLine(USAGE, {
    target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'sibling-key': { type: 'string' }, 'other-key': { type: 'string' },
    plan: { type: 'string' }, 'reference-config': { type: 'string' }, 'allow-remote': { type: 'boolean' },
    'expect-rate': { type: 'string' }, 'expect-burst': { type: 'string' }, tolerance: { type: 'string' },
    'max-time': { type: 'string' }, 'max-rate': { type: 'string' }, 'max-requests': { type: 'string' }, 'max-burst': { type: 'string' },
    'start-rate': { type: 'string' }, 'step-time': { type: 'string' }, 'refine-steps': { type: 'string' },
    'report-dir': { type: 'string' }, mutant: { type: 'string' }, quiet: { type: 'boolean' },
  });
  const apiKey = keyOption(values, 'api-key');
  const siblingKey = keyOption(values, 'sibling-key');
  const otherKey = keyOption(values, 'other-key');
  secrets = () => Secrets.from({ values: [apiKey, siblingKey, otherKey], urls: [values['base-url']] });
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
    reportDir: resolve(values['report-dir'] ?? 'reports/probe'),
    quiet: values.quiet ?? false,
  };
}

/** Every secret the probe holds so far: the keys given, then the target's and the ring's (it learns keys as it goes). */
let secrets = (): Secrets => new Secrets();
const redact = (text: string) => scrubText(text, secrets());
const log = (line: string) => console.error(redact(line));

/** Probes the target and writes the reports; returns the verdict's exit code. */
async function run(o: ReturnType<typeof readOptions>): Promise<number> {
  const { kind, baseUrl, apiKey, plan, configured, maxTimeS, maxRate, startRate } = o;
  let ring: KeyRing | undefined;
  let target: LoadTarget | undefined;
  secrets = () => Secrets.from({
    values: [apiKey, o.siblingKey, o.otherKey, target?.apiKey, target?.admin?.token, ...(ring?.keys ?? [])],
    urls: [baseUrl, target?.admin?.url],
  });
  try {
    target = await prepareLoadTarget({
      kind,
      ...(baseUrl && { baseUrl }),
      ...(kind === 'url' && apiKey && { apiKey }),
      allowRemote: o.allowRemote,
      ...(o.reference && { reference: o.reference }),
      ...(o.mutant && { mutant: o.mutant }),
      log,
    });
    ring = new KeyRing(target, { plan: plan ?? '', ...(o.siblingKey && { siblingKey: o.siblingKey }), ...(o.otherKey && { otherKey: o.otherKey }) });
    log(`probe: ${plan ? `plan "${plan}"${configured ? ` (configured ${configured.ratePerSecond} req/s, burst ${configured.burst})` : ''}, ` : ''}budget ${maxTimeS} s, offered rates ${startRate} to ${maxRate} req/s, at most ${o.maxRequests} requests`);
    const result = await runProbe({
      target, keys: ring, ...(plan !== undefined && { plan }), ...(configured && { configured }),
      maxTimeS, maxRate, startRate, stepTimeS: o.stepTimeS, refineSteps: o.refineSteps, maxRequests: o.maxRequests, maxBurst: o.maxBurst, tolerancePct: o.tolerancePct,
      ...(o.expectRate !== undefined && { expectRate: o.expectRate }), ...(o.expectBurst !== undefined && { expectBurst: o.expectBurst }),
      log,
      ...(!o.quiet && {
        progress: (p: ProbeSoFar) => log(`probe: ${p.elapsedS.toFixed(1)} of ${maxTimeS} s, ${p.sent} requests sent, ${p.throttled} × 429, ${p.errors} errors so far`),
      }),
    });
    // Printed from the scrubbed copy the reports were written from.
    const { files, result: clean } = writeProbeReports(result, o.reportDir, secrets());
    // The folder's report.html (a conformance run's page) gets the probe's section: src/report-folder composes it.
    try {
      const html = writeReportHtml(o.reportDir, secrets());
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
    return result.exitCode;
  } finally {
    await target?.close();
  }
}

// An unreachable or unsafe target, or any other error, is main()'s: one scrubbed line, exit 2.
await main({ usage: USAGE, scrub: redact }, () => run(readOptions()));
