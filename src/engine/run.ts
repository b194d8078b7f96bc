import type { CheckDefinition } from './check.js';
import { resolve } from 'node:path';
import { requirement } from '../catalog/index.js';
import { selection } from './selection.js';
import { planChecks, runPlanned, searchesIn } from './runner.js';
import { inNewScope } from '../kit/run-scope.js';
import { scrubText } from '../kit/scrub.js';
import { McpSession } from '../mcp/mcp-session.js';
import type { Profile } from '../profile/profile.js';
import { CHECKS_AT_ONCE, DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_WAIT_BUDGET_MS, GROUPS_AT_ONCE, type RunOptions } from './run-options.js';
import { referenceLimitsInForce, resolveRunLimits } from '../profile/limits.js';
import { deriveProfile, listTools, SPEC_STREAMING_TOOLS } from '../profile/profile-derive.js';
import type { TargetInfo } from '../targets/target-info.js';
import { WireClient } from '../wire/client.js';
import { measureHarnessLoad } from '../kit/harness-load.js';
import { QUICK_BUDGET, timeBoxOf } from './property.js';
import { aggregate, decide, targetLoss, type Consumption, type Results } from './results.js';
import { claimReportDir, conformanceSecrets, writeReports } from '../reports/index.js';
import { prepareEmbedded, type TargetBase } from '../targets/embedded.js';
import { TargetError, type PreparedTarget } from '../targets/target.js';
import { prepareUrl } from '../targets/url.js';
import { detectRevisionsWithEvidence } from '../targets/detect-revisions.js';
import { openRunSession } from '../targets/session-lifecycle.js';
import type { CheckRecord } from './verdict.js';
import { CLIENT_IDS } from '../interop/clients.js';
import { interopMatrixRequirements } from '../catalog/interop-matrix.js';
import { MATRIX_WORK, startMatrix } from '../interop/matrix.js';
import { KEY_NEVER_ECHOED, keyEchoRecord } from '../judging/key-echoes.js';
import { NO_5XX, serverErrorRecord } from '../wire/server-errors.js';
import { sampleWire } from '../wire/wire-sample.js';
import { PACKAGE_ROOT, packageInfo } from '../kit/package-root.js';
import { RunState } from './run-state.js';

export const ROOT = PACKAGE_ROOT;

export { DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_WAIT_BUDGET_MS, defaultProfile, type RunOptions } from './run-options.js';

async function prepare(run: RunState, options: RunOptions, base: TargetBase, bootstrapBudget: number): Promise<PreparedTarget> {
  switch (options.target) {
    case 'embedded':
      return prepareEmbedded(run, base, options.mutant);
    case 'url':
      if (!options.baseUrl && !options.mcpUrl) throw new TargetError('--target url needs --base-url (or --mcp-url for the generic profile)');
      return prepareUrl(run, base, options.baseUrl ?? new URL(options.mcpUrl!).origin, options.mcpUrl, options.mailboxUrl, bootstrapBudget);
    case 'container': {
      // Loaded on demand: testcontainers is heavy and only this target needs it.
      const { prepareContainer } = await import('../targets/container.js');
      return prepareContainer(run, base);
    }
    case 'stdio': {
      // The command's HTTP side: the embedded reference server, or the deployment at --base-url.
      const { prepareStdio } = await import('../targets/stdio.js');
      const http = options.baseUrl ? await prepareUrl(run, base, options.baseUrl, undefined, options.mailboxUrl, bootstrapBudget) : await prepareEmbedded(run, base);
      return { ...(await prepareStdio(http, options.stdioCommand)), bootstrapsUsed: http.bootstrapsUsed ?? 0 };
    }
    default:
      throw new TargetError(`--target ${options.target} is not available yet`);
  }
}

/**
 * Runs the checks against one target and writes the reports: one function in this process, with a state of
 * its own (src/engine/run-state.ts) handed down to everything it runs, so that runs side by side share
 * nothing. Throws TargetError when the target is unusable; an error leaving the run is scrubbed of every
 * secret the run learnt.
 */
export function runConformance(options: RunOptions, checks: Promise<readonly CheckDefinition[]>): Promise<Results> {
  // The redactor's aliases and caches are the one thing kept in the run's async scope (src/kit/run-scope.ts).
  return inNewScope(async () => {
    const run = new RunState({
      seed: options.seed, timeoutMs: options.timeoutMs, property: options.property ?? QUICK_BUDGET, protocol: options.protocol,
      ...(options.clients && { interopClients: options.clients }),
    });
    try {
      return await runWith(run, options, checks);
    } catch (err) {
      if (err instanceof Error) err.message = scrubText(err.message, conformanceSecrets(options, undefined, run.keys.redaction()));
      throw err;
    } finally {
      // The run's connections end with it: the next run in this process starts with none (src/wire/connections.ts).
      await run.close();
    }
  });
}

async function runWith(run: RunState, options: RunOptions, loading: Promise<readonly CheckDefinition[]>): Promise<Results> {
  // The rows the generic profile judges are read off the checks: loaded first (some 150 ms), before anything is sent.
  const definitions = await loading;
  // A missing or malformed profile (e.g. its "limits"), or a selection of nothing, is bad usage: exit 2 with the reason.
  const { profile, selected } = selection(options, definitions);
  claimReportDir(resolve(options.reportDir));
  const startedAt = new Date();
  const started = performance.now();
  const machine = measureHarnessLoad();
  // Deployments get a bounded budget; the embedded target is ours and its limits are set for the suites.
  const owned = options.target === 'embedded' || (options.target === 'stdio' && !options.baseUrl);
  const bootstrapBudget = options.bootstrapBudget ?? (owned ? Infinity : DEFAULT_BOOTSTRAP_BUDGET);
  const waitBudgetMs = options.waitBudgetMs ?? DEFAULT_WAIT_BUDGET_MS;
  const target = await prepare(run, options, {
    headers: options.headers, apiKey: options.apiKey, otherKey: options.otherKey, revokedKey: options.revokedKey, profile, ...(options.keySources && { keySources: options.keySources }),
  }, bootstrapBudget);
  const preparedBootstraps = target.bootstrapsUsed ?? 0;
  run.keys.configure(target.info);
  // A server the harness starts runs CONFORMANCE_CONFIG: those are the limits in force, whatever the profile says.
  const harnessServer = owned || options.target === 'container';
  const limits = resolveRunLimits({
    profile: profile.limits, profileName: profile.name, ...(harnessServer && { inForce: referenceLimitsInForce(), inForceName: 'the configuration of the reference server the harness started (service/reference-server/conformance-config.ts)' }),
    key: options.limits?.key, other: options.limits?.other, keyGiven: options.apiKey !== undefined, otherGiven: options.otherKey !== undefined,
  });
  // A server the harness started names its own origin in its files (its publicBaseUrl is its address).
  const publicBaseUrl = options.publicBaseUrl ?? profile.publicBaseUrl ?? (options.target === 'embedded' || options.target === 'container' ? target.info.baseUrl : undefined);
  // What the run knows of the target, each fact added once as it is learnt: prepared, declared, detected, in session, derived.
  let info: TargetInfo = { ...target.info, ...(limits && { limits }), ...(publicBaseUrl && { publicBaseUrl: new URL(publicBaseUrl).origin }) };
  const searches = options.progress?.live ? options.progress : undefined;
  const ledger = run.openLedger(
    { bootstraps: Number.isFinite(bootstrapBudget) ? Math.max(0, bootstrapBudget - preparedBootstraps) : undefined, waitMs: waitBudgetMs },
    searches && ((s) => searches.search(s)),
  );
  const detected = await detectRevisionsWithEvidence(run, info);
  info = { ...info, revisions: detected.revisions, ...(detected.refusal && { revisionRefusal: detected.refusal }) };
  let session: Awaited<ReturnType<typeof openRunSession>> | undefined;
  let matrix: Promise<unknown> | undefined;
  let records: CheckRecord[];
  let propertyBudget: Results['propertyBudget'];
  try {
    session = await openRunSession(run, info);
    if (session.sessionId !== undefined) info = { ...info, sessionId: session.sessionId };
    // Every key, token and session id the run holds is known now, before the first progress line.
    options.progress?.setSecrets(conformanceSecrets(options, info, run.keys.redaction()));
    if (profile.derive) info = { ...info, profile: await deriveFor(run, info) };
    const plan = planChecks(definitions, info, run.settings, options.only);
    // The run's search time split evenly among the searches its checks declare, known before any check starts.
    const { budgetMs, replay } = run.settings.property;
    if (budgetMs !== undefined && !replay) {
      const searchCount = searchesIn(plan);
      propertyBudget = { budgetMs, searches: searchCount, timeBoxMs: timeBoxOf(budgetMs, searchCount) };
      run.settings = { ...run.settings, property: { ...run.settings.property, timeLimitMs: propertyBudget.timeBoxMs } };
    }
    // The interop matrix runs beside the checks: its clients wait on the target, no check waits on them but its own.
    const matrixClients = profile.kind === 'service'
      ? CLIENT_IDS.filter((id) => interopMatrixRequirements.some((r) => r.client === id && selected(r))) : [];
    matrix = matrixClients.length > 0 ? startMatrix(run, info, matrixClients) : undefined;
    if (matrix) ledger.share(MATRIX_WORK, matrix);
    records = await runPlanned(plan, info, run, {
      // Our own server's limits are set for the checks: four groups side by side keep two cores busy. A
      // deployment gets one group at a time: side by side they trip its production rate limits.
      groups: harnessServer ? GROUPS_AT_ONCE.owned : GROUPS_AT_ONCE.deployment,
      concurrency: CHECKS_AT_ONCE,
      ...(options.progress && { events: options.progress.events() }),
    });
  } finally {
    options.progress?.stop();
    await matrix?.catch(() => undefined);
    await session?.close();
    await target.close();
  }
  const spent = run.tally.take();
  const consumption: Consumption = {
    bootstrapBudget: Number.isFinite(bootstrapBudget) ? bootstrapBudget : null,
    ...spent,
    mails: spent.workspaces,
    waitBudgetMs,
    bootstrapShares: { ...(preparedBootstraps > 0 && { 'target keys': preparedBootstraps }), ...ledger.granted },
    ...(Object.keys(ledger.refused).length > 0 && { beyondBudget: ledger.refused }),
    // An MCP endpoint (--mcp-url) offers no bootstrap: its budget is never used, so no report prints one.
    ...(!info.canBootstrap && { canBootstrap: false as const }),
  };
  // Every reply any check received, judged once all are in (src/judging/key-echoes.ts).
  if (selected(requirement(KEY_NEVER_ECHOED))) records.push(keyEchoRecord(run.keys.take()));
  // Every malformed or unexpected message any check sent, and the 5xx among their replies (src/wire/server-errors.ts).
  if (selected(requirement(NO_5XX))) records.push(serverErrorRecord(run.serverErrors, info.mcpUrl));
  for (const r of records) r.replay = replayCommand(options, r);
  const { requirements, totals } = aggregate(records, selected, new Set(options.baseline));
  const loss = targetLoss(records, requirements, startedAt);
  sampleWire(records);
  const { exitCode, verdict } = decide(requirements, options.strict, loss);
  const results: Results = {
    schemaVersion: 1,
    tool: packageInfo(),
    target: { kind: info.kind, baseUrl: info.baseUrl, mcpUrl: info.mcpUrl },
    profile: profile.name,
    protocolRevision: info.revisions.join(', ') || 'none detected',
    seed: options.seed,
    strict: options.strict,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    requirements,
    totals,
    consumption,
    ...(propertyBudget && { propertyBudget }),
    ...(loss && { targetLost: loss }),
    harness: machine.stop(),
    verdict,
    exitCode,
  };
  // The one door (src/reports/index.ts): every file, and what the CLI prints, comes from a copy scrubbed of the run's secrets.
  const dir = resolve(options.reportDir);
  const secrets = conformanceSecrets(options, info, run.keys.redaction());
  const clean = writeReports(results, dir, secrets, !options.writeReports);
  // report.html is the folder's page (with a load or probe run written beside): composed, scrubbed again, from results.json.
  if (options.writeReports) await options.composeReportHtml?.(dir, secrets);
  return clean;
}

/** The derived profile's recipes from the target's tools/list (src/profile/profile-derive.ts). */
async function deriveFor(run: RunState, info: TargetInfo): Promise<Profile> {
  const tools = await listTools(new McpSession(new WireClient([], () => [], { run }), info));
  if (typeof tools === 'string') {
    const why = `the recipes are built from tools/list, which could not be read: ${tools}`;
    return { ...info.profile, gaps: Object.fromEntries([...SPEC_STREAMING_TOOLS, 'createBlock', 'listBlocks', 'publishBlock'].map((k) => [k, why])) };
  }
  return deriveProfile(info.profile, tools, run.settings.seed);
}

/** The command that runs a check alone; a failed property's adds the path that replays its counterexample. */
function replayCommand(options: RunOptions, r: CheckRecord): string {
  const replay = r.property?.path ? ` --replay ${r.property.id}:${r.property.path}` : '';
  return `${options.replayBase ?? 'npm run conformance --'} --only ${r.requirementIds[0]!} --seed ${options.seed}${replay}`;
}
