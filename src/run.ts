import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, startVitest, type TestSpecification } from 'vitest/node';
import { startBroker } from './budget/broker.js';
import { sumSpent, takeSpent } from './budget/tally.js';
import { CATALOG, requirement } from './catalog/index.js';
import { McpSession } from './mcp-session.js';
import { loadProfile, type Profile } from './profile.js';
import { DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_WAIT_BUDGET_MS, SUITE_WORKERS, type RunOptions } from './run-options.js';
import { referenceLimitsInForce, resolveRunLimits } from './limits.js';
import { deriveProfile, listTools, SPEC_STREAMING_TOOLS } from './profile-derive.js';
import type { TargetInfo } from './target-info.js';
import { WireClient } from './wire/client.js';
import { QUICK_BUDGET } from './property.js';
import { aggregate, decide, targetLoss, type Consumption, type Results } from './results.js';
import { conformanceSecrets, writeReports } from './reports/index.js';
import { prepareEmbedded, type TargetBase } from './targets/embedded.js';
import { TargetError, type PreparedTarget } from './targets/target.js';
import { prepareUrl } from './targets/url.js';
import { detectRevisionsWithEvidence } from './targets/detect-revisions.js';
import { openRunSession } from './targets/session-lifecycle.js';
import type { CheckRecord } from './verdict.js';
import { CLIENT_IDS } from './interop/clients.js';
import { interopMatrixRequirements } from './catalog/interop-matrix.js';
import { MATRIX_WORK, startMatrix } from './interop/matrix.js';
import { suiteFiles } from './suite-selection.js';
import { keptSuiteThreads } from './suite-threads/pool.js';
import { countSearches, timeBoxOf } from './properties/searches.js';
import { keyLedger } from './wire/key-sightings.js';
import { KEY_NEVER_ECHOED, keyEchoRecord } from './key-echoes.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

export { DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_WAIT_BUDGET_MS, defaultProfile, SUITE_WORKERS, type RunOptions } from './run-options.js';

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
  keyLedger.reset(); // and its keys and key sightings
  const target = await prepare(options, {
    headers: options.headers, apiKey: options.apiKey, otherKey: options.otherKey, revokedKey: options.revokedKey, profile,
    protocol: options.protocol, timeoutMs: options.timeoutMs, seed: options.seed, property: options.property ?? QUICK_BUDGET,
  }, bootstrapBudget);
  const preparedBootstraps = target.bootstrapsUsed ?? 0;
  keyLedger.configure(target.info);
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
  const { budgetMs, replay } = target.info.property;
  let propertyBudget: Results['propertyBudget'];
  if (budgetMs !== undefined && !replay) {
    const searches = countSearches((id) => selected(requirement(id)), detected.revisions);
    propertyBudget = { budgetMs, searches, timeBoxMs: timeBoxOf(budgetMs, searches) };
    target.info.property = { ...target.info.property, timeLimitMs: propertyBudget.timeBoxMs };
  }
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
      pool: options.keepSuiteThreads ? keptSuiteThreads : 'threads',
      // The suites wait on the target far more than they compute: four workers keep two cores busy (one
      // worker, the default here, ran the groups one after another). The suite files of a worker share one
      // module graph (isolate: false): the harness's modules, fast-check's arbitraries and ajv's compiled
      // schemas load once per worker, not once per file; the suites keep no state at module level that
      // another file could see (the same records, seed for seed, either way).
      maxWorkers: harnessServer ? SUITE_WORKERS.owned : SUITE_WORKERS.deployment,
      isolate: false,
      // Transformed modules cached on disk (node_modules/.experimental-vitest-cache), keyed by each file's
      // content, vitest's version and config, written atomically: a run need not transform the harness again
      // (0.12 s of each narrow run, 20 %, in the pools of the harness's tests).
      experimental: { fsModuleCache: true },
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
  // Every reply any check received, judged once all are in (src/key-echoes.ts).
  if (selected(requirement(KEY_NEVER_ECHOED))) records.push(keyEchoRecord(keyLedger.take()));
  for (const r of records) r.replay = replayCommand(options, r);
  const { requirements, totals } = aggregate(records, selected, new Set(options.baseline));
  const loss = targetLoss(records, requirements, startedAt);
  const { exitCode, verdict } = decide(requirements, options.strict, loss);
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
    ...(loss && { targetLost: loss }),
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
