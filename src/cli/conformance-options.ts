import { readFileSync } from 'node:fs';
import { REVISIONS } from '../catalog/types.js';
import { ConformanceProgress } from '../engine/progress.js';
import { QUICK_BUDGET, type PropertyBudget } from '../engine/property.js';
import { DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_WAIT_BUDGET_MS, defaultProfile, type RunOptions } from '../engine/run-options.js';
import { splitCommandLine, DEFAULT_STDIO_COMMAND } from '../targets/stdio.js';
import { parseCommandLine } from '../kit/command-line.js';
import { exitStatus } from '../kit/main.js';
import { enumOption, headerOption, listOption, numberOption, urlOption, UsageError } from '../kit/options.js';
import { Secrets } from '../kit/scrub.js';
import { KEY_ENV, keyOption, keySource, mutantOption, seedOption, targetOption, timeoutOption } from './shared-options.js';
import { parseLimitsOption, type LimitsOption } from '../profile/limits.js';
import { publicOrigin } from '../profile/profile.js';
import { CLIENT_IDS, parseClients, type ClientId } from '../interop/clients.js';
import { callerPath, invocation, replayInvocation, reportDirOption } from '../kit/invocation.js';

export const CONFORMANCE_USAGE = `Usage: ${invocation('conformance')} [options]

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
  --public-base-url <url> the deployment's public origin (over the profile's "publicBaseUrl"), when it is
                          tested at another address: discovery files must name the endpoint on it
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
                          a 429 that cannot be waited out within it fails its check as throttled

Selection and verdict
  --only <id or prefix>   run only these requirements (repeatable, or comma-separated)
  --strict                a failing SHOULD fails the run too, and so does a MUST whose checks were all
                          not testable (a failing MAY or INFO never fails the run)
  --baseline <file>       JSON array of requirement ids expected to fail (or of { "id", "reason" } entries);
                          one that now passes fails the run (stale)

Run
  --report-dir <dir>      where reports go (default: env HARNESS_REPORT_DIR, else reports/latest)
  --reporter default|github  default: the verdict, totals and report paths on stdout; github adds a
                          GitHub Actions annotation per failing check on stdout (::error for a MUST,
                          ::warning for a SHOULD, ::notice for a MAY or INFO), with its replay command
  --quiet                 print only the verdict line: no start line, no progress
  --list                  print the requirements these options select (id, level, group, sentence) and
                          exit 0, sending nothing; --json prints them as a JSON array
  --seed <n>              seed for generated inputs and ordering (default: random, printed)

Properties (fast-check searches of the input space, shrunk to a minimal counterexample)
  --budget <s>            seconds of searching the run may spend, split evenly among the searches its
                          selection makes (default ${QUICK_BUDGET.budgetMs! / 1000}: a full run's 20 searches get about 0.9 s each,
                          a run of one row's search all of it)
  --runs <n>              runs per property (default ${QUICK_BUDGET.runs}, within the budget); alone, deep mode: every
                          search makes its n runs, with no time box (e.g. --runs 10000)
  --property-time <ms>    the time box of each search instead of a share of --budget (0 = none)
  --replay <id>:<path>    replay one counterexample exactly (with its --seed), as printed on failure
  --timeout <ms>          per-request deadline (default 10000)
  -h, --help              this help

${exitStatus('conforms', 'a requirement fails (or a selected one has no check)', 'a target that stops answering mid-run (its reports are written)')}`;

function fail(message: string): never {
  throw new UsageError(message);
}

export interface ConformanceCommand {
  options: RunOptions;
  reporter: 'default' | 'github';
  quiet: boolean;
  /** The line a run starts with (scrub it before printing). */
  startLine: string;
  /** `--list` (`--json`): print the requirements the options select instead of running. */
  list?: 'text' | 'json';
}

/**
 * The conformance command line read into a run's options: src/cli/conformance.ts runs one, the project's
 * tests many in one process (scripts/conformance-runs.ts). `onSecrets` learns the raw keys, headers and URL credentials
 * before any value is judged, so that a usage error quoting one can be scrubbed.
 */
export function parseConformanceArgs(args: string[] | undefined, onSecrets: (secrets: Secrets) => void): ConformanceCommand {
  const { values } = parseCommandLine(CONFORMANCE_USAGE, {
    target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'revoked-key': { type: 'string' },
    'other-key': { type: 'string' }, limits: { type: 'string' }, 'other-limits': { type: 'string' }, 'bootstrap-budget': { type: 'string' }, 'wait-budget': { type: 'string' },
    'mcp-url': { type: 'string' }, 'public-base-url': { type: 'string' }, header: { type: 'string', multiple: true }, 'mailbox-url': { type: 'string' },
    profile: { type: 'string' }, protocol: { type: 'string' }, only: { type: 'string', multiple: true },
    strict: { type: 'boolean' }, baseline: { type: 'string' }, 'report-dir': { type: 'string' }, seed: { type: 'string' },
    timeout: { type: 'string' }, mutant: { type: 'string' }, 'stdio-command': { type: 'string' },
    clients: { type: 'string' }, runs: { type: 'string' }, 'property-time': { type: 'string' }, budget: { type: 'string' }, replay: { type: 'string' },
    reporter: { type: 'string' }, quiet: { type: 'boolean' }, list: { type: 'boolean' }, json: { type: 'boolean' },
  }, { args });
  // A usage error may quote a value: keys, whole --header lines and URL credentials are secrets from here on.
  onSecrets(Secrets.from({
    values: [values['api-key'], values['other-key'], values['revoked-key'], ...Object.values(KEY_ENV).map((name) => process.env[name]), ...(values.header ?? [])],
    urls: [values['base-url'], values['mcp-url'], values['mailbox-url']],
  }));

  const mcpUrl = urlOption('--mcp-url', values['mcp-url']);
  const { kind: target, baseUrl } = targetOption(values, {
    kinds: ['embedded', 'url', 'container', 'stdio'], baseUrlKinds: ['url', 'stdio'], endpointOption: { name: '--mcp-url', value: mcpUrl },
  });
  if (target === 'stdio' && mcpUrl) fail('--target stdio takes --base-url for its HTTP side, not --mcp-url');
  if (target === 'container' && mcpUrl) fail('--target container runs its own server: it takes no --base-url or --mcp-url');
  if (target === 'embedded' && mcpUrl) fail('--target embedded runs its own server: it takes no --mcp-url');
  const mailboxUrl = urlOption('--mailbox-url', values['mailbox-url']);
  let publicBaseUrl: string | undefined;
  if (values['public-base-url'] !== undefined) {
    try {
      publicBaseUrl = publicOrigin(values['public-base-url'], '--public-base-url');
    } catch (err) {
      fail((err as Error).message);
    }
  }
  const headers = headerOption('--header', values.header);
  const reporter = enumOption('--reporter', values.reporter, ['default', 'github']) ?? 'default';
  const quiet = values.quiet ?? false;
  if (values.json && !values.list) fail('--json goes with --list');
  const list = values.list ? (values.json ? 'json' : 'text') : undefined;
  const protocol = enumOption('--protocol', values.protocol, ['auto', ...REVISIONS]) ?? 'auto';
  const only = listOption('--only', values.only, 'requirement id or prefix') ?? [];
  const { seed } = seedOption(values.seed);
  const timeoutMs = timeoutOption(values.timeout);
  const runs = numberOption('--runs', values.runs, { integer: true, min: 1, max: 1_000_000, fallback: QUICK_BUDGET.runs });
  const propertyTime = numberOption('--property-time', values['property-time'], { integer: true, min: 0, max: 3_600_000, unit: 'milliseconds' });
  const budget = numberOption('--budget', values.budget, { min: 0.1, max: 86_400, unit: 'seconds' });
  if (budget !== undefined && propertyTime !== undefined) fail('--budget and --property-time both set the searches\' time: give one');
  // --property-time: the given box; --runs alone: deep mode, no box; else a share of the run's budget.
  const search: Pick<PropertyBudget, 'timeLimitMs' | 'budgetMs'> = propertyTime !== undefined ? { timeLimitMs: propertyTime }
    : budget === undefined && values.runs !== undefined ? { timeLimitMs: 0 }
    : { timeLimitMs: QUICK_BUDGET.timeLimitMs, budgetMs: Math.round((budget ?? QUICK_BUDGET.budgetMs! / 1000) * 1000) };
  const bootstrapBudget = numberOption('--bootstrap-budget', values['bootstrap-budget'], { integer: true, min: 0, max: 10_000 });
  const waitBudget = numberOption('--wait-budget', values['wait-budget'], { min: 0, max: 3600, unit: 'seconds' });
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
  const otherKey = keyOption(values, 'other-key');
  // Without --other-key the other key is bootstrapped like the run's: its plan is the bootstrap plan.
  if (otherLimits && !otherKey) fail('--other-limits declares the plan of --other-key: give --other-key (or MCP_OTHER_KEY) too');
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
      const parsed = JSON.parse(readFileSync(callerPath(values.baseline), 'utf8')) as unknown;
      // Ids, or { "id", "reason" } entries that say why each failure is expected (docs/examples/).
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
  const mutant = mutantOption(values.mutant, target, 'conformance');
  if (values['stdio-command'] !== undefined) {
    if (target !== 'stdio') fail('--stdio-command needs --target stdio');
    try {
      if (splitCommandLine(values['stdio-command']).length === 0) fail('--stdio-command is empty');
    } catch (err) {
      if (err instanceof UsageError) throw err;
      fail((err as Error).message);
    }
  }

  const replayBase = [replayInvocation('conformance'), `--target ${target}`];
  if (baseUrl) replayBase.push(`--base-url ${baseUrl}`);
  if (mcpUrl) replayBase.push(`--mcp-url ${mcpUrl}`);
  if (publicBaseUrl) replayBase.push(`--public-base-url ${publicBaseUrl}`);
  if (values.profile) replayBase.push(`--profile ${values.profile}`);
  if (bootstrapBudget !== undefined) replayBase.push(`--bootstrap-budget ${bootstrapBudget}`);
  if (values.limits) replayBase.push(`--limits ${values.limits}`);
  if (values['other-limits']) replayBase.push(`--other-limits ${values['other-limits']}`);
  if (protocol !== 'auto') replayBase.push(`--protocol ${protocol}`);
  if (mutant) replayBase.push(`--mutant ${mutant}`);
  if (clients) replayBase.push(`--clients ${clients.join(',')}`);
  if (values['stdio-command']) replayBase.push(`--stdio-command '${values['stdio-command'].replace(/'/g, "'\\''")}'`);

  const options: RunOptions = {
    target,
    baseUrl,
    mcpUrl,
    ...(publicBaseUrl && { publicBaseUrl }),
    headers,
    apiKey: keyOption(values, 'api-key'),
    otherKey,
    keySources: { apiKey: keySource(values, 'api-key'), otherKey: keySource(values, 'other-key') },
    revokedKey: keyOption(values, 'revoked-key'),
    mailboxUrl,
    profile: values.profile ?? defaultProfile(target, { baseUrl, mcpUrl }),
    bootstrapBudget,
    waitBudgetMs: waitBudget === undefined ? undefined : waitBudget * 1000,
    ...((keyLimits || otherLimits) && { limits: { key: keyLimits, other: otherLimits } }),
    protocol,
    only,
    strict: values.strict ?? false,
    baseline,
    reportDir: reportDirOption(values['report-dir'], 'reports/latest'),
    seed,
    timeoutMs,
    mutant,
    stdioCommand: values['stdio-command'],
    ...(clients && { clients }),
    replayBase: replayBase.join(' '),
    property: { runs, ...search, shrinkTimeMs: QUICK_BUDGET.shrinkTimeMs, ...(replay && { replay }) },
    writeReports: true,
    // Loaded when reports are written: the page's renderers need not load before a bad command line is answered.
    composeReportHtml: async (dir, secrets) => (await import('../reports/folder/compose.js')).writeReportHtml(dir, secrets),
    ...(!quiet && { progress: new ConformanceProgress() }),
  };

  const startLine = `conformance: target ${target}${baseUrl ? ` ${baseUrl}` : ''}${mcpUrl ? ` ${mcpUrl}` : ''}, profile ${options.profile}, seed ${seed}, properties ${search.budgetMs ? `${search.budgetMs / 1000} s shared, ${runs} runs at most each` : `${runs} runs${search.timeLimitMs ? ` or ${search.timeLimitMs} ms` : ''} each`}${replay ? `, replaying ${values.replay}` : ''}`;
  return { options, reporter, quiet, startLine, ...(list && { list }) };
}
