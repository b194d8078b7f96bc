import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, startVitest, type TestSpecification } from 'vitest/node';
import { startBroker } from './budget/broker.js';
import { sumSpent, takeSpent } from './budget/tally.js';
import { CATALOG } from './catalog/index.js';
import type { Revision } from './catalog/types.js';
import { McpSession } from './mcp-session.js';
import { loadProfile, type Profile } from './profile.js';
import { referenceLimitsInForce, resolveRunLimits, type LimitsOption } from './limits.js';
import { deriveProfile, listTools, SPEC_STREAMING_TOOLS } from './profile-derive.js';
import type { TargetInfo } from './target-info.js';
import { WireClient } from './wire/client.js';
import { QUICK_BUDGET, type PropertyBudget } from './property.js';
import { aggregate, decide, type Consumption, type Results } from './results.js';
import { conformanceSecrets, writeReports } from './reports/index.js';
import type { Secrets } from './kit/scrub.js';
import { prepareEmbedded, type TargetBase } from './targets/embedded.js';
import { TargetError, type PreparedTarget } from './targets/target.js';
import { prepareUrl } from './targets/url.js';
import { detectRevisionsWithEvidence } from './targets/detect-revisions.js';
import { openRunSession } from './targets/session-lifecycle.js';
import type { CheckRecord } from './verdict.js';
import { CLIENT_IDS, type ClientId } from './interop/clients.js';
import { interopMatrixRequirements } from './catalog/interop-matrix.js';
import { MATRIX_WORK, startMatrix } from './interop/matrix.js';
import type { ConformanceProgress } from './progress.js';
import { suiteFiles } from './suite-selection.js';
import { countSearches, timeBoxOf } from './properties/searches.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

export interface RunOptions {
  target: 'embedded' | 'url' | 'container' | 'stdio';
  baseUrl?: string;
  mcpUrl?: string;
  headers: Record<string, string>;
  apiKey?: string;
  /** A live key of a second workspace (`--other-key`), for the isolation rows without bootstrap. */
  otherKey?: string;
  revokedKey?: string;
  mailboxUrl?: string;
  /**
   * Bootstrap requests the run may send (`--bootstrap-budget`): each may create a workspace and mail a
   * human on the deployment. Default: DEFAULT_BOOTSTRAP_BUDGET for deployments, unbounded on the embedded target.
   */
  bootstrapBudget?: number;
  /** Time the whole run may spend waiting out 429s (`--wait-budget`, ms; default DEFAULT_WAIT_BUDGET_MS). */
  waitBudgetMs?: number;
  /** Declared limits of the run's key's plan (`--limits`) and of `--other-key`'s (`--other-limits`), over the profile's. */
  limits?: { key?: LimitsOption; other?: LimitsOption };
  profile: string;
  protocol: 'auto' | Revision;
  only: string[];
  strict: boolean;
  /** Requirement ids expected to fail. */
  baseline: string[];
  reportDir: string;
  seed: number;
  /** Property checks' budget (default: the quick, time-boxed CI mode) and a counterexample to replay. */
  property?: PropertyBudget;
  timeoutMs: number;
  /** Stdio target: the command speaking MCP over stdio (default: the repo's own proxy). */
  stdioCommand?: string;
  /** The SDK clients of the interop matrix (`--clients`); absent: all. Rows of the others are not selected. */
  clients?: ClientId[];
  /** Embedded target only: run against a deliberately broken variant (the harness's own tests). */
  mutant?: string;
  /** Extra suites to include (glob relative to the repo root); the default is every suite. */
  suites?: string[];
  /** Writes junit.xml and summary.md beside results.json, then report.html through `composeReportHtml` (the CLI does; by default only results.json). */
  writeReports?: boolean;
  /**
   * Writes report.html of the report directory from the runs it holds (src/report-folder's writeReportHtml):
   * that layer sits above the harness, so the CLI hands it in. Called with the run's secrets.
   */
  composeReportHtml?: (dir: string, secrets: Secrets) => unknown;
  /** The command line that reproduces this run, for replay hints (keys never included). */
  replayBase?: string;
  /** Live progress on stderr (src/progress.ts): fed by the run's vitest reporter hooks, scrubbed with the run's secrets. */
  progress?: ConformanceProgress;
}

/**
 * A deployment's default bootstrap budget: the keys of two workspaces, one shared reply for the reply
 * checks, a key to burst with, a workspace to fill to its cap, one body per bad-body check, and a few runs of
 * the bootstrap properties. Back to back, two runs stay within a bootstrap burst of 30 (the reference's
 * default), so neither sees a 429 of the other's making.
 */
export const DEFAULT_BOOTSTRAP_BUDGET = 16;
export const DEFAULT_WAIT_BUDGET_MS = 60_000;
/**
 * Suite files run side by side (vitest worker threads) on a server the harness started: its limits are set
 * for the suites. On a deployment one at a time, as before: side by side they trip its production rate limits
 * (an SDK client's connect refused with 429, streams served one after another), which would be false failures.
 */
export const SUITE_WORKERS = { owned: 4, deployment: 1 } as const;

/** The profile a user gets without --profile: the spec's own names on deployments, our recipes on our server. */
export function defaultProfile(target: RunOptions['target'], urls: { baseUrl?: string; mcpUrl?: string }): string {
  if (urls.mcpUrl) return 'generic';
  return target === 'url' || (target === 'stdio' && urls.baseUrl) ? 'service' : 'reference';
}

/** Ids selected by --only (exact ids or prefixes); empty selects all. */
export function selectRequirements(only: string[], profileKind: 'service' | 'generic', clients?: readonly string[]) {
  return (r: (typeof CATALOG)[number]) =>
    (profileKind === 'service' || r.generic === true) && (only.length === 0 || only.some((o) => r.id === o || r.id.startsWith(o)))
    && (!r.client || !clients || clients.includes(r.client));
}

async function prepare(options: RunOptions, base: TargetBase, bootstrapBudget: number): Promise<PreparedTarget> {
  switch (options.target) {
    case 'embedded':
      return prepareEmbedded(base, options.mutant);
    case 'url':
      if (!options.baseUrl && !options.mcpUrl) throw new TargetError('--target url needs --base-url (or --mcp-url for the generic profile)');
      return prepareUrl(base, options.baseUrl ?? new URL(options.mcpUrl!).origin, options.mcpUrl, options.mailboxUrl, bootstrapBudget);
    case 'container': {
      // Loaded on demand: testcontainers is heavy and only this target needs it.
      const { prepareContainer } = await import('./targets/container.js');
      return prepareContainer(base);
    }
    case 'stdio': {
      // The command's HTTP side: the embedded reference server, or the deployment at --base-url.
      const { prepareStdio } = await import('./targets/stdio.js');
      const http = options.baseUrl ? await prepareUrl(base, options.baseUrl, undefined, options.mailboxUrl, bootstrapBudget) : await prepareEmbedded(base);
      return { ...(await prepareStdio(http, options.stdioCommand)), bootstrapsUsed: http.bootstrapsUsed ?? 0 };
    }
    default:
      throw new TargetError(`--target ${options.target} is not available yet`);
  }
}

/** Runs the suites against one target and writes the reports. Throws TargetError when the target is unusable. */
export async function runConformance(options: RunOptions): Promise<Results> {
  // A missing or malformed profile (e.g. its "limits") is bad usage: exit 2 with the reason, not a stack.
  let profile: Profile;
  try {
    profile = loadProfile(options.profile, ROOT);
  } catch (err) {
    throw new TargetError((err as Error).message);
  }
  const selected = selectRequirements(options.only, profile.kind, options.clients);
  if (!CATALOG.some(selected)) throw new TargetError(`${[options.only.length > 0 && `--only ${options.only.join(',')}`, options.clients && `--clients ${options.clients.join(',')}`].filter(Boolean).join(' with ')} selects no requirement`);
  const startedAt = new Date();
  const started = performance.now();
  // Deployments get a bounded budget; the embedded target is ours and its limits are set for the suites.
  const owned = options.target === 'embedded' || (options.target === 'stdio' && !options.baseUrl);
  const bootstrapBudget = options.bootstrapBudget ?? (owned ? Infinity : DEFAULT_BOOTSTRAP_BUDGET);
  const waitBudgetMs = options.waitBudgetMs ?? DEFAULT_WAIT_BUDGET_MS;
  takeSpent(); // this process's counts start with this run
  const target = await prepare(options, {
    headers: options.headers, apiKey: options.apiKey, otherKey: options.otherKey, revokedKey: options.revokedKey, profile,
    protocol: options.protocol, timeoutMs: options.timeoutMs, seed: options.seed, property: options.property ?? QUICK_BUDGET,
  }, bootstrapBudget);
  const preparedBootstraps = target.bootstrapsUsed ?? 0;
  // A server the harness starts runs CONFORMANCE_CONFIG: those are the limits in force, whatever the profile says.
  const harnessServer = owned || options.target === 'container';
  const limits = resolveRunLimits({
    profile: profile.limits, profileName: profile.name, ...(harnessServer && { inForce: referenceLimitsInForce(), inForceName: 'the configuration of the reference server the harness started (fixtures/reference-server/conformance-config.ts)' }),
    key: options.limits?.key, other: options.limits?.other, keyGiven: options.apiKey !== undefined, otherGiven: options.otherKey !== undefined,
  });
  if (limits) target.info.limits = limits;
  if (options.clients) target.info.interopClients = options.clients;
  const searches = options.progress?.live ? options.progress : undefined;
  const broker = await startBroker({
    bootstraps: Number.isFinite(bootstrapBudget) ? Math.max(0, bootstrapBudget - preparedBootstraps) : undefined, waitMs: waitBudgetMs,
    ...(searches && { onSearch: (s) => searches.search(s) }),
  });
  target.info.broker = { url: broker.url, token: broker.token, ...(searches && { searches: true }) };
  const detected = await detectRevisionsWithEvidence(target.info);
  target.info.revisions = detected.revisions;
  // The run's search time split evenly among the searches of its selection, known before any suite loads.
  const budgetMs = target.info.property.budgetMs;
  const propertyBudget = budgetMs === undefined || target.info.property.replay ? undefined : (() => {
    const searches = countSearches((id) => CATALOG.some((r) => r.id === id && selected(r)), detected.revisions);
    return { budgetMs, searches, timeBoxMs: timeBoxOf(budgetMs, searches) };
  })();
  if (propertyBudget) target.info.property = { ...target.info.property, timeLimitMs: propertyBudget.timeBoxMs };
  if (detected.refusal) target.info.revisionRefusal = detected.refusal;
  const session = await openRunSession(target.info);
  // Every key, token and session id the run holds is known now, before the first progress line.
  options.progress?.setSecrets(conformanceSecrets(options, target.info));
  if (profile.derive) target.info.profile = await deriveFor(target.info);
  // The interop matrix runs here, beside the suites: its clients wait on the target, no suite worker waits on them.
  const matrixClients = profile.kind === 'service'
    ? CLIENT_IDS.filter((id) => interopMatrixRequirements.some((r) => r.client === id && selected(r))) : [];
  const matrix = matrixClients.length > 0 ? startMatrix(target.info, matrixClients) : undefined;
  if (matrix) broker.share(MATRIX_WORK, matrix);
  const records: CheckRecord[] = [];
  const suiteErrors: string[] = [];
  try {
    const vitest = await startVitest('test', [], {
      root: ROOT,
      include: options.suites ?? suiteFiles(options.only, selected),
      watch: false,
      config: false,
      reporters: [{
        onTestRunEnd(modules, unhandled) {
          for (const m of modules) for (const e of m.errors()) suiteErrors.push(`${m.moduleId}: ${e.message}`);
          for (const e of unhandled) suiteErrors.push(`unhandled: ${e.message}`);
          for (const m of modules) for (const t of m.children.allTests()) {
            const record = t.meta().conformance;
            if (!record) continue;
            // Failed with no message: vitest ended the check (its time box) before the check judged anything.
            const errors = t.result().errors ?? [];
            if (record.status === 'fail' && record.message === undefined && errors.length > 0) {
              record.status = 'error';
              record.message = `harness error: ${errors.map((e) => e.message).join('; ')}`;
            }
            records.push(record);
          }
        },
      }, ...(options.progress ? [options.progress.reporter()] : [])],
      provide: { target: target.info, only: options.only },
      pool: 'threads',
      // The suites wait on the target far more than they compute: four workers keep two cores busy (one
      // worker, the default here, ran the groups one after another). The suite files of a worker share one
      // module graph (isolate: false): the harness's modules, fast-check's arbitraries and ajv's compiled
      // schemas load once per worker, not once per file; the suites keep no state at module level that
      // another file could see (the same records, seed for seed, either way).
      maxWorkers: harnessServer ? SUITE_WORKERS.owned : SUITE_WORKERS.deployment,
      isolate: false,
      testTimeout: 60_000,
      sequence: { seed: options.seed, sequencer: MatrixLast },
    }, { server: { watch: null } });
    await vitest?.close();
  } finally {
    options.progress?.stop();
    await matrix?.catch(() => undefined);
    await session.close();
    await target.close();
    await broker.close();
  }
  const ledger = broker.ledger();
  const spent = sumSpent(ledger.spent, takeSpent());
  const consumption: Consumption = {
    bootstrapBudget: Number.isFinite(bootstrapBudget) ? bootstrapBudget : null,
    ...spent,
    mails: spent.workspaces,
    waitBudgetMs,
    bootstrapShares: { ...(preparedBootstraps > 0 && { 'target keys': preparedBootstraps }), ...ledger.granted },
    ...(Object.keys(ledger.refused).length > 0 && { beyondBudget: ledger.refused }),
  };
  // A suite that cannot load (an unknown requirement id, a syntax error) is a harness bug, never a verdict.
  if (suiteErrors.length > 0) throw new Error(`suite errors:\n${suiteErrors.join('\n')}`);
  for (const r of records) r.replay = replayCommand(options, r);
  const { requirements, totals } = aggregate(records, selected, new Set(options.baseline));
  const { exitCode, verdict } = decide(requirements, options.strict);
  const results: Results = {
    schemaVersion: 1,
    tool: { name: pkg.name, version: pkg.version },
    target: { kind: target.info.kind, baseUrl: target.info.baseUrl, mcpUrl: target.info.mcpUrl },
    profile: profile.name,
    protocolRevision: target.info.revisions.join(', ') || 'none detected',
    seed: options.seed,
    strict: options.strict,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    requirements,
    totals,
    consumption,
    ...(propertyBudget && { propertyBudget }),
    verdict,
    exitCode,
  };
  // The one door (src/reports/index.ts): every file, and what the CLI prints, comes from a copy scrubbed of the run's secrets.
  const dir = resolve(options.reportDir);
  const secrets = conformanceSecrets(options, target.info);
  const clean = writeReports(results, dir, secrets, !options.writeReports);
  // report.html is the folder's page (with a load or probe run written beside): composed, scrubbed again, from results.json.
  if (options.writeReports) options.composeReportHtml?.(dir, secrets);
  return clean;
}

/**
 * The interop matrix suite only reads what the main process's matrix found: run last, its worker finds the
 * matrix done instead of waiting on it while other suites queue.
 */
class MatrixLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const last = (f: TestSpecification) => (f.moduleId.endsWith('interop-matrix.suite.ts') ? 1 : 0);
    return [...sorted].sort((a, b) => last(a) - last(b));
  }
}

/** The derived profile's recipes from the target's tools/list (src/profile-derive.ts). */
async function deriveFor(info: TargetInfo): Promise<Profile> {
  const tools = await listTools(new McpSession(new WireClient([], () => [], info.timeoutMs), info));
  if (typeof tools === 'string') {
    const why = `the recipes are built from tools/list, which could not be read: ${tools}`;
    return { ...info.profile, gaps: Object.fromEntries([...SPEC_STREAMING_TOOLS, 'createBlock', 'listBlocks', 'publishBlock'].map((k) => [k, why])) };
  }
  return deriveProfile(info.profile, tools, info.seed);
}

/** The command that runs a check alone; a failed property's adds the path that replays its counterexample. */
function replayCommand(options: RunOptions, r: CheckRecord): string {
  const replay = r.property?.path ? ` --replay ${r.property.id}:${r.property.path}` : '';
  return `${options.replayBase ?? 'npm run conformance --'} --only ${r.requirementIds[0]!} --seed ${options.seed}${replay}`;
}
