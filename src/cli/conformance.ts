import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REVISIONS, type Revision } from '../catalog/types.js';
import { conformanceSecrets, REPORT_FILES, scrubLine } from '../reports/index.js';
import { QUICK_BUDGET, type PropertyBudget } from '../property.js';
import { DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_WAIT_BUDGET_MS, defaultProfile, runConformance, type RunOptions } from '../run.js';
import { describeConsumption } from '../reports/consumption.js';
import { writeReportHtml } from '../report-folder/compose.js';
import { splitCommandLine, DEFAULT_STDIO_COMMAND } from '../targets/stdio.js';
import { TargetError } from '../targets/target.js';
import { parseCommandLine, usageError } from '../kit/command-line.js';
import { parseLimitsOption, type LimitsOption } from '../limits.js';
import { CLIENT_IDS, parseClients, type ClientId } from '../interop/clients.js';

const USAGE = `Usage: npm run conformance -- [options]

Checks a deployment of the hosted agent-tool MCP service, requirement by requirement, and writes
results.json (and the other reports) to the report directory.

Target
  --target embedded|url|container|stdio   where to test (default embedded: the reference server in-process;
                          container: builds ./Dockerfile and runs it via DOCKER_HOST, default podman's
                          unix:///tmp/podman.sock, env BASE_IMAGE and NODE_MODULES as in the Dockerfile;
                          stdio: a stdio command in front of the embedded server, or of --base-url)
  --base-url <url>        the service's base URL (url target); keys come from its bootstrap endpoint
  --api-key <key>         a live key (or env MCP_API_KEY) instead of bootstrapping
  --other-key <key>       a live key of a second workspace (or env MCP_OTHER_KEY), for the isolation checks
  --revoked-key <key>     a revoked key (or env MCP_REVOKED_KEY), for the revocation check
  --limits rate=<r>,burst=<b>,cap=<c>[,plan=<name>]
                          the declared limits of the run's key's plan (--api-key's, else the bootstrap
                          plan), over the profile's "limits": rate-limit-exists needs a 429 within
                          1.5 x burst + rate x seconds + 10 requests, calls-plan-cap-exists a refusal by
                          cap + a tenth + 2 blocks
  --other-limits <same>   the declared limits of --other-key's plan, for rate-limit-plans-differ
  --mcp-url <url>         a full MCP endpoint URL: any Streamable HTTP MCP server (implies --profile generic)
  --header 'Name: value'  extra header on every MCP request (repeatable)
  --mailbox-url <url>     GET returns the mails your SMTP sink received (url target), for the claim-mail check
  --profile <name|file>   call recipes for this implementation (default: service for url targets, i.e.
                          only what the spec names plus what tools/list declares; reference for the
                          embedded and container targets; generic for --mcp-url)
  --protocol auto|<rev>   protocol revision to test (default auto); one of ${REVISIONS.join(', ')}
  --clients <ids>         the SDK clients of the interop matrix, comma-separated (default all:
                          ${CLIENT_IDS.join(',')}); each runs as its own program, over HTTP and through
                          the stdio proxy; one whose runtime is missing is not testable, with its install command
  --stdio-command '<cmd>' the stdio target's command line (default: the repository's proxy,
                          ${DEFAULT_STDIO_COMMAND}); it gets
                          CANVAS_MCP_URL and CANVAS_API_KEY in its environment, never as arguments

Budgets (a deployment is not ours: the run spends a bounded, declared amount of it)
  --bootstrap-budget <n>  bootstrap requests the run may send, each may create a workspace and mail a
                          human (default ${DEFAULT_BOOTSTRAP_BUDGET} for url targets, unbounded on targets the harness starts);
                          0 sends none: give --api-key and --other-key
  --wait-budget <s>       seconds the whole run may spend waiting out 429s (default ${DEFAULT_WAIT_BUDGET_MS / 1000});
                          beyond it a rate-limited check is not testable, never failed

Selection and verdict
  --only <id or prefix>   run only these requirements (repeatable, or comma-separated)
  --strict                a failing SHOULD fails the run too, and so does a MUST whose checks were all
                          not testable (a failing MAY or INFO never fails the run)
  --baseline <file>       JSON array of requirement ids expected to fail (or of { "id", "reason" } entries);
                          one that now passes fails the run (stale)

Run
  --report-dir <dir>      where reports go (default reports/latest)
  --seed <n>              seed for generated inputs and ordering (default: random, printed)

Properties (fast-check searches of the input space, shrunk to a minimal counterexample)
  --runs <n>              runs per property (default 1000, time-boxed); deep mode, e.g. --runs 10000
  --property-time <ms>    time box of each property's search (default 1500 quick; 0 = none, the default
                          when --runs is given)
  --replay <id>:<path>    replay one counterexample exactly (with its --seed), as printed on failure
  --timeout <ms>          per-request deadline (default 10000)
  -h, --help              this help

Exit status: 0 conforms, 1 a requirement fails (or a selected one has no check), 2 bad usage, an unreachable
target, or a check that broke inside the harness (no verdict on the service).`;

function fail(message: string): never {
  return usageError(USAGE, message);
}

const { values } = parseCommandLine(USAGE, {
  target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'revoked-key': { type: 'string' },
  'other-key': { type: 'string' }, limits: { type: 'string' }, 'other-limits': { type: 'string' }, 'bootstrap-budget': { type: 'string' }, 'wait-budget': { type: 'string' },
  'mcp-url': { type: 'string' }, header: { type: 'string', multiple: true }, 'mailbox-url': { type: 'string' },
  profile: { type: 'string' }, protocol: { type: 'string' }, only: { type: 'string', multiple: true },
  strict: { type: 'boolean' }, baseline: { type: 'string' }, 'report-dir': { type: 'string' }, seed: { type: 'string' },
  timeout: { type: 'string' }, mutant: { type: 'string' }, 'stdio-command': { type: 'string' },
  clients: { type: 'string' }, runs: { type: 'string' }, 'property-time': { type: 'string' }, replay: { type: 'string' },
});

const target = (values.target ?? (values['base-url'] || values['mcp-url'] ? 'url' : 'embedded')) as RunOptions['target'];
if (!['embedded', 'url', 'container', 'stdio'].includes(target)) fail(`--target must be embedded, url, container or stdio (got "${target}")`);
if (target === 'url' && !values['base-url'] && !values['mcp-url']) fail('--target url needs --base-url or --mcp-url');
for (const [name, value] of [['--base-url', values['base-url']], ['--mcp-url', values['mcp-url']], ['--mailbox-url', values['mailbox-url']]] as const) {
  if (value !== undefined && !(URL.canParse(value) && /^https?:$/.test(new URL(value).protocol))) fail(`${name} must be an http(s) URL (got "${value}")`);
}
const headers: Record<string, string> = {};
for (const h of values.header ?? []) {
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(h);
  if (!m) fail(`--header must look like 'Name: value' (got "${h}")`);
  headers[m[1]!.toLowerCase()] = m[2]!;
}
const protocol = (values.protocol ?? 'auto') as RunOptions['protocol'];
if (protocol !== 'auto' && !(REVISIONS as readonly string[]).includes(protocol)) fail(`--protocol must be auto or one of ${REVISIONS.join(', ')}`);
const only = (values.only ?? []).flatMap((o) => o.split(',')).map((o) => o.trim()).filter(Boolean);
if (values.only && only.length === 0) fail('--only needs at least one requirement id or prefix');
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isSafeInteger(seed) || seed < 0) fail(`--seed must be a non-negative integer (got "${values.seed}")`);
const timeoutMs = values.timeout === undefined ? 10_000 : Number(values.timeout);
if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 600_000) fail(`--timeout must be milliseconds from 100 to 600000 (got "${values.timeout}")`);
const runs = values.runs === undefined ? QUICK_BUDGET.runs : Number(values.runs);
if (!Number.isInteger(runs) || runs < 1 || runs > 1_000_000) fail(`--runs must be an integer from 1 to 1000000 (got "${values.runs}")`);
const propertyTime = values['property-time'] === undefined ? (values.runs === undefined ? QUICK_BUDGET.timeLimitMs : 0) : Number(values['property-time']);
if (!Number.isInteger(propertyTime) || propertyTime < 0 || propertyTime > 3_600_000) fail(`--property-time must be milliseconds from 0 to 3600000 (got "${values['property-time']}")`);
const bootstrapBudget = values['bootstrap-budget'] === undefined ? undefined : Number(values['bootstrap-budget']);
if (bootstrapBudget !== undefined && (!Number.isInteger(bootstrapBudget) || bootstrapBudget < 0 || bootstrapBudget > 10_000)) fail(`--bootstrap-budget must be an integer from 0 to 10000 (got "${values['bootstrap-budget']}")`);
const waitBudget = values['wait-budget'] === undefined ? undefined : Number(values['wait-budget']);
if (waitBudget !== undefined && (!Number.isFinite(waitBudget) || waitBudget < 0 || waitBudget > 3600)) fail(`--wait-budget must be seconds from 0 to 3600 (got "${values['wait-budget']}")`);
const limitsOption = (flag: 'limits' | 'other-limits'): LimitsOption | undefined => {
  const value = values[flag];
  if (value === undefined) return undefined;
  try {
    return parseLimitsOption(value, `--${flag}`);
  } catch (err) {
    return fail((err as Error).message);
  }
};
const keyLimits = limitsOption('limits');
const otherLimits = limitsOption('other-limits');
// Without --other-key the other key is bootstrapped like the run's: its plan is the bootstrap plan.
if (otherLimits && !(values['other-key'] ?? process.env.MCP_OTHER_KEY)) fail('--other-limits declares the plan of --other-key: give --other-key (or MCP_OTHER_KEY) too');
let replay: PropertyBudget['replay'];
if (values.replay !== undefined) {
  const m = /^([a-z0-9][a-z0-9.-]*):(\d+(?::\d+)*)$/.exec(values.replay);
  if (!m) fail(`--replay must look like <property id>:<path>, e.g. auth-key-mutations:12:0:3 (got "${values.replay}")`);
  if (values.seed === undefined) fail('--replay needs the --seed of the run that found the counterexample');
  replay = { id: m[1]!, path: m[2]! };
}
let baseline: string[] = [];
if (values.baseline) {
  try {
    const parsed = JSON.parse(readFileSync(values.baseline, 'utf8')) as unknown;
    // Ids, or { "id", "reason" } entries that say why each failure is expected (fixtures/baselines/).
    const ids = Array.isArray(parsed) ? parsed.map((x: unknown) => (typeof x === 'object' && x !== null ? (x as { id?: unknown }).id : x)) : undefined;
    if (!ids || !ids.every((x): x is string => typeof x === 'string')) throw new Error('expected a JSON array of requirement ids, or of { "id", "reason" } entries');
    baseline = ids;
  } catch (err) {
    fail(`--baseline ${values.baseline}: ${(err as Error).message}`);
  }
}
let clients: ClientId[] | undefined;
if (values.clients !== undefined) {
  const parsed = parseClients(values.clients);
  if (typeof parsed === 'string') fail(parsed);
  clients = parsed;
}
if (values.mutant && target !== 'embedded') fail('--mutant works with the embedded target only');
if (values.mutant) {
  // An unknown name is bad input (exit 2 with the known names), not a stack trace.
  const { mutant } = await import('../../fixtures/mutants/index.js');
  try {
    mutant(values.mutant);
  } catch (err) {
    fail((err as Error).message);
  }
}
if (values['stdio-command'] !== undefined) {
  if (target !== 'stdio') fail('--stdio-command needs --target stdio');
  try {
    if (splitCommandLine(values['stdio-command']).length === 0) fail('--stdio-command is empty');
  } catch (err) {
    fail((err as Error).message);
  }
}
if (target === 'stdio' && values['mcp-url']) fail('--target stdio takes --base-url for its HTTP side, not --mcp-url');
if (target === 'container' && (values['base-url'] || values['mcp-url'])) fail('--target container runs its own server: it takes no --base-url or --mcp-url');

const replayBase = ['npm run conformance --', `--target ${target}`];
if (values['base-url']) replayBase.push(`--base-url ${values['base-url']}`);
if (values['mcp-url']) replayBase.push(`--mcp-url ${values['mcp-url']}`);
if (values.profile) replayBase.push(`--profile ${values.profile}`);
if (bootstrapBudget !== undefined) replayBase.push(`--bootstrap-budget ${bootstrapBudget}`);
if (values.limits) replayBase.push(`--limits ${values.limits}`);
if (values['other-limits']) replayBase.push(`--other-limits ${values['other-limits']}`);
if (protocol !== 'auto') replayBase.push(`--protocol ${protocol}`);
if (values.mutant) replayBase.push(`--mutant ${values.mutant}`);
if (clients) replayBase.push(`--clients ${clients.join(',')}`);
if (values['stdio-command']) replayBase.push(`--stdio-command '${values['stdio-command'].replace(/'/g, "'\\''")}'`);

const options: RunOptions = {
  target,
  baseUrl: values['base-url'],
  mcpUrl: values['mcp-url'],
  headers,
  apiKey: values['api-key'] ?? process.env.MCP_API_KEY,
  otherKey: values['other-key'] ?? process.env.MCP_OTHER_KEY,
  revokedKey: values['revoked-key'] ?? process.env.MCP_REVOKED_KEY,
  mailboxUrl: values['mailbox-url'],
  profile: values.profile ?? defaultProfile(target, { baseUrl: values['base-url'], mcpUrl: values['mcp-url'] }),
  bootstrapBudget,
  waitBudgetMs: waitBudget === undefined ? undefined : waitBudget * 1000,
  ...((keyLimits || otherLimits) && { limits: { key: keyLimits, other: otherLimits } }),
  protocol,
  only,
  strict: values.strict ?? false,
  baseline,
  reportDir: values['report-dir'] ?? 'reports/latest',
  seed,
  timeoutMs,
  mutant: values.mutant,
  stdioCommand: values['stdio-command'],
  ...(clients && { clients }),
  replayBase: replayBase.join(' '),
  property: { runs, timeLimitMs: propertyTime, shrinkTimeMs: QUICK_BUDGET.shrinkTimeMs, ...(replay && { replay }) },
  writeReports: true,
  composeReportHtml: writeReportHtml,
};

// Printed lines pass the same scrubber as the reports (a --base-url may carry credentials).
const secrets = conformanceSecrets(options);
console.error(scrubLine(`conformance: target ${target}${values['base-url'] ? ` ${values['base-url']}` : ''}${values['mcp-url'] ? ` ${values['mcp-url']}` : ''}, profile ${options.profile}, seed ${seed}, properties ${runs} runs${propertyTime ? ` or ${propertyTime} ms` : ''} each${replay ? `, replaying ${values.replay}` : ''}`, secrets));
try {
  const results = await runConformance(options);
  const t = results.totals;
  console.log(`${results.verdict}\n${t.pass} pass, ${t.fail} fail, ${t.warn} warn, ${t.notTestable} not testable, ${t.untested} untested${t.error ? `, ${t.error} harness error` : ''} (${(results.durationMs / 1000).toFixed(1)} s)`);
  if (results.consumption) console.log(`consumed: ${describeConsumption(results.consumption)}`);
  console.log(`reports:\n${REPORT_FILES.map((f) => `  ${join(resolve(options.reportDir), f)}`).join('\n')}`);
  process.exit(results.exitCode);
} catch (err) {
  if (err instanceof TargetError) {
    console.error(scrubLine(`error: ${err.message}`, secrets));
    process.exit(2);
  }
  throw err;
}
