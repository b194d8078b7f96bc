import { setMaxListeners } from 'node:events';
import { searchReporter } from '../budget/run-ledger.js';
import { onlySelects, requirement } from '../catalog/index.js';
import { REVISIONS, type Requirement, type Revision } from '../catalog/types.js';
import type { TargetInfo } from '../targets/target-info.js';
import { recordingFetch, type RecordingFetch } from '../interop/recording-fetch.js';
import { finalMessage, McpSession } from '../mcp/mcp-session.js';
import { runProperty, type PropertyRecord, type PropertySpec } from './property.js';
import { primaryRevision } from '../mcp/revision-wire.js';
import { CheckFailure, harnessCause, isVerdict, NotTestable, TargetLost, type CheckRecord, type InteropTag } from './verdict.js';
import { stalledMs } from '../kit/harness-load.js';
import { lostExchange } from '../wire/target-liveness.js';
import { WireClient, type WireResponse } from '../wire/client.js';
import type { Exchange } from '../wire/exchange.js';
import { inCheck } from '../wire/key-sightings.js';
import type { RunState } from './run-state.js';
import type { RunSettings } from './run-settings.js';
import { redact } from '../wire/redact.js';

/**
 * A conformance check is a record: the requirement rows it verifies, its name, what it needs (its deadline,
 * whether it holds for any MCP server, the property search it runs) and its body. A suite file declares them
 * with `check({ ids, name, ..., run })` inside `describe()` blocks of its own `defineSuite()` (below), and
 * suites/index.ts lists the suites; a run (src/engine/runner.ts) plans which of them to run against its
 * target and runs each with `runCheck()`, with the run's state.
 */

export interface CheckContext {
  target: TargetInfo;
  /** The run's state: its request ids (`run.ids`), its budgets (`run.ledger`), the keys it holds, work its checks share (`run.once`). */
  run: RunState;
  /** The run's settings (`run.settings`): seed, request deadline, property budget, the revision asked for. */
  settings: RunSettings;
  /**
   * The protocol revision this run of the check speaks (every `mcp` request carries its wire): for a
   * revision-dependent row, the revision of this run; otherwise the run's primary revision. Undefined when
   * the target speaks no detected revision.
   */
  revision?: Revision;
  /** Raw HTTP with recording. */
  http: WireClient;
  /** MCP calls on the target's endpoint with its key and headers. */
  mcp: McpSession;
  /** Fails the check with expected vs actual unless `ok`. */
  verify(ok: boolean, message: string, expected: unknown, actual: unknown): void;
  /**
   * Ends the check as not testable on this target. Only for reasons outside the service's control (the user's
   * inputs, the target kind): when the service prevents the check, the check fails with that reason.
   */
  notTestable(reason: string): never;
  /** Ends the check as not applicable: the rule does not concern this target (its kind, a wire it does not speak). */
  notApplicable(reason: string): never;
  /** Records a fact that decides nothing. */
  observe(note: string): void;
  /** Adds a secret obtained during the check (a freshly bootstrapped key): it is redacted like the target's keys. */
  addSecret(secret: string): void;
  /** The secrets to redact now: the run's (`runSecrets`) and those added by the check. */
  secrets(): string[];
  /** A reply in a few fields for a failure's `actual` (status, media type, JSON-RPC messages or the start of the text), secrets redacted. */
  brief(res: WireResponse): ReplyBrief;
  /** A fetch for an SDK client's transport that records every exchange into this check's wire log, secrets redacted. */
  recordingFetch(): RecordingFetch;
  /**
   * Runs the check's property search with the run's seed and budget, the one its record declares
   * (`options.property`, which names it for replay): the spec's `id` may be left out (it is the record's), and if
   * given must be the same. The predicate uses `verify` or returns false; a failure is shrunk and reported with
   * seed and path.
   */
  property<T>(spec: Omit<PropertySpec<T>, 'id'> & { id?: string }): Promise<void>;
  /** Interop matrix checks: names the SDK client the check judged (the report's client x step matrix). */
  tagClient(tag: InteropTag): void;
  /** Keeps the whole wire log in the reports, whatever the verdict: it is what the verdict rests on (a probe's calls). */
  keepWire(): void;
}

/** The request a check failed on because the target accepts no connection any more, described; else undefined. */
async function lostTarget(wire: readonly Exchange[], url: string, run: RunState): Promise<string | undefined> {
  const x = lostExchange(wire);
  if (!x || !(await run.liveness.gone(url))) return undefined;
  return `${x.request.method} ${new URL(x.request.url, url).pathname} at ${x.startedAt}: ${x.error}`;
}

/** What `brief` keeps of a reply. */
export interface ReplyBrief {
  status: number;
  contentType: string | undefined;
  /** The JSON body; else the SSE messages (the one message alone); else the first 300 characters of the text. */
  body: unknown;
}

/**
 * The secrets a run holds, one list for every redaction: its keys, the admin token, the run's session id (it
 * lets anyone act in that session until it ends), the stdio server's key; `extra` adds keys learnt on the way.
 */
export function runSecrets(target: TargetInfo, extra: readonly string[] = []): string[] {
  return [target.apiKey, target.otherKey, target.revokedKey, target.admin?.token, target.sessionId, target.stdio?.env.CANVAS_API_KEY, ...extra].filter((k): k is string => !!k);
}

function briefOf(res: WireResponse, secrets: readonly string[]): ReplyBrief {
  const body = res.json ?? (res.messages && res.messages.length > 1 ? res.messages : finalMessage(res)) ?? res.text.slice(0, 300);
  // Replies are recorded redacted, but a check holds them as they came: a service echoing a key must not put it in a report.
  return { status: res.status, contentType: res.headers['content-type'], body: JSON.parse(redact(JSON.stringify(body) ?? 'null', secrets)) as unknown };
}

/** A check's deadline unless it names its own. */
const CHECK_TIMEOUT_MS = 30_000;

export interface CheckOptions {
  /** The check's deadline in ms (default CHECK_TIMEOUT_MS), or one that depends on the run's settings. */
  timeout?: number | ((settings: RunSettings) => number);
  /**
   * Run under the generic profile too (protocol rules that hold for any MCP server); `only`: under the generic
   * profile only (a generic way to a rule the service's own checks judge with the service's recipes).
   */
  generic?: boolean | 'only';
  /** A check of rate limiting: its requests are not paced and its 429s are not waited out. */
  rateLimit?: boolean;
  /**
   * The property search the check runs (`c.property(spec)` takes this id; `--replay` names it): a run counts the
   * searches of its selection to split its search budget among them before any check starts.
   */
  property?: string;
}

/**
 * The rows that hold for any Streamable HTTP MCP server, not just this service: those a check judges under the
 * generic profile (`generic: true` or `'only'`). Written once, on the checks; the catalog rows do not repeat it.
 */
export function genericRows(checks: readonly CheckDefinition[]): ReadonlySet<string> {
  return new Set(checks.filter((c) => c.options.generic).flatMap((c) => c.requirementIds));
}

/** A check as its suite writes it: what it judges and needs first, its body (`run`) last. */
export interface CheckSpec extends CheckOptions {
  /** The catalog rows it verifies. */
  ids: string | string[];
  name: string;
  run: (c: CheckContext) => Promise<void>;
}

/** A check as declared by its suite. */
export interface CheckDefinition {
  requirementIds: string[];
  name: string;
  body: (c: CheckContext) => Promise<void>;
  options: CheckOptions;
  /** Its suite file and describe path, for the record (`suites/auth.suite.ts > auth`). */
  suite: string;
  /** The requirement group its suite file is named after (`auth`, `properties/jsonrpc`): a run's progress lines. */
  group: string;
  /** Declared in a `describe.concurrent` block: it may run beside the group's other checks. */
  concurrent: boolean;
}

/** A suite: its requirement group (the file `suites/<group>.suite.ts`) and its checks, in declaration order. */
export interface Suite {
  group: string;
  checks: readonly CheckDefinition[];
}

/** What a suite file declares its checks with: bound to that suite alone, closed once the suite is sealed. */
export interface SuiteDeclaration {
  /** A block of the suite's checks, run one after another; `describe.concurrent`: side by side. */
  describe: ((name: string, body: () => void) => void) & { concurrent: (name: string, body: () => void) => void };
  /**
   * Declares a conformance check: its record (the rows it verifies, its name, what it needs, its body), added to
   * the suite's list. The check's result starts as a failure and becomes a pass only when the body completes; a
   * thrown NotTestable makes it not testable with its reason.
   */
  check: (spec: CheckSpec) => void;
  /** The suite, its check list final: a check declared after this (outside the file's own declaration) throws. */
  seal: () => Suite;
}

/**
 * Starts the suite of requirement group `group` (`auth`, `properties/jsonrpc`): a suite file takes its
 * `describe` and `check` from here and exports `seal()`; suites/index.ts lists the suites in run order.
 */
export function defineSuite(group: string): SuiteDeclaration {
  const file = `suites/${group}.suite.ts`;
  const checks: CheckDefinition[] = [];
  let sealed = false;
  let block: { describe: string; concurrent: boolean } | undefined;
  const open = (name: string, concurrent: boolean, body: () => void) => {
    if (sealed) throw new Error(`describe("${name}") after the suite ${file} was sealed: its checks are declared when the file loads`);
    const outer = block;
    block = { describe: name, concurrent };
    try {
      body();
    } finally {
      block = outer;
    }
  };
  return {
    describe: Object.assign((name: string, body: () => void) => open(name, false, body), { concurrent: (name: string, body: () => void) => open(name, true, body) }),
    check({ ids, name, run: body, ...options }) {
      const requirementIds = Array.isArray(ids) ? ids : [ids];
      for (const id of requirementIds) requirement(id); // an unknown id is a bug in the suite: fail when it loads
      if (sealed) throw new Error(`check "${name}" declared after the suite ${file} was sealed: its checks are declared when the file loads`);
      if (!block) throw new Error(`check "${name}" declared outside a describe block of ${file}`);
      checks.push({ requirementIds, name, body, options, suite: `${file} > ${block.describe}`, group, concurrent: block.concurrent });
    },
    seal() {
      sealed = true;
      return { group, checks };
    },
  };
}

/** The revisions a check's rows all apply to (undefined: none of its rows depends on the revision). */
export function rowRevisions(rows: Requirement[]): Revision[] | undefined {
  if (!rows.some((r) => r.revisions)) return undefined;
  return REVISIONS.filter((rev) => rows.every((r) => !r.revisions || r.revisions.includes(rev)));
}

/**
 * One run of a check against a target. Which revision it speaks: a row with `revisions` depends on the
 * revision, so the check runs once per revision the target speaks that the row applies to, each run named with
 * the revision, its requests carrying that revision's wire. Other checks run once, on the run's primary revision.
 */
export interface PlannedCheck {
  def: CheckDefinition;
  /** The check's name, with ` [<revision>]` for a run per revision. */
  runName: string;
  applies?: Revision[];
  revision?: Revision;
}

/** The runs of `def` against `target`, when `only` selects it and the target's profile concerns it. */
export function planCheck(def: CheckDefinition, target: TargetInfo, settings: RunSettings, only: readonly string[]): PlannedCheck[] {
  const { requirementIds: ids, name } = def;
  if (!ids.some((id) => onlySelects(only, id))) return [];
  if (target.profile.kind === 'generic' ? !def.options.generic : def.options.generic === 'only') return [];
  const applies = rowRevisions(ids.map(requirement));
  const runs = applies ? applies.filter((rev) => target.revisions.includes(rev)) : [];
  if (runs.length > 0) return runs.map((revision) => ({ def, runName: `${name} [${revision}]`, applies, revision }));
  // Revision-dependent but the target speaks none of its revisions: one run, not testable (in runCheck).
  return [{ def, runName: name, ...(applies && { applies }), ...(!applies && { revision: primaryRevision(settings.protocol, target.revisions) }) }];
}

/** The deadline of one run of the check, in ms. */
export function deadlineOf(def: CheckDefinition, settings: RunSettings): number {
  const t = def.options.timeout;
  return typeof t === 'function' ? t(settings) : t ?? CHECK_TIMEOUT_MS;
}

/**
 * Runs one planned check against the target and returns its record. The check's deadline ends it as the
 * harness's error (its requests are aborted): a check that does not end says nothing about the service.
 */
export async function runCheck(planned: PlannedCheck, target: TargetInfo, run: RunState): Promise<CheckRecord> {
  const { def, applies, revision } = planned;
  const { name, requirementIds, body, options } = def;
  const wire: Exchange[] = [];
  const record: CheckRecord = {
    name, suite: def.suite, requirementIds, status: 'fail', observations: [], wire, durationMs: 0, ...(revision && { revision }),
  };
  const extraSecrets: string[] = [];
  const secrets = () => runSecrets(target, extraSecrets);
  const started = performance.now();
  // When it started (ISO): junit.xml's suite time is the wall time of its checks, which run side by side.
  record.startedAt = new Date().toISOString();
  const { settings } = run;
  const deadlineMs = deadlineOf(def, settings);
  // A 429 is waited out only while the check can still judge after it: its deadline less a request's own.
  const deadlineAt = started + deadlineMs - Math.min(settings.timeoutMs, deadlineMs / 3);
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // every request of the check listens to it
  const http = new WireClient(wire, secrets, { pace: !options.rateLimit, deadlineAt, deadlineMs, signal: abort.signal, run });
  const c: CheckContext = {
    target,
    run,
    settings,
    revision,
    http,
    mcp: new McpSession(http, target, { revision: revision ?? null }),
    verify(ok, message, expected, actual) {
      if (!ok) throw new CheckFailure(message, expected, actual);
    },
    notTestable(reason) {
      throw new NotTestable(reason);
    },
    notApplicable(reason) {
      throw new NotTestable(reason, true);
    },
    observe(note) {
      record.observations.push(note);
    },
    addSecret(secret) {
      extraSecrets.push(secret);
      run.keys.learnSecret(secret); // the report door redacts it too (bootstrapped keys are known as keys already)
    },
    secrets,
    brief: (res) => briefOf(res, secrets()),
    recordingFetch: () => recordingFetch(run, wire, secrets(), () => http.waitRoom()),
    tagClient(tag) {
      record.interop = tag;
    },
    keepWire() {
      record.keepWire = true;
    },
    async property(given) {
      const id = given.id ?? options.property;
      if (record.property) throw new Error(`check "${name}" runs a second property (${id}): one property per check, so a replay names it`);
      // The run split its search budget among the searches its checks declare: an undeclared one would overrun it.
      if (id === undefined || options.property !== id) throw new Error(`check "${name}" runs the property ${id ?? '(no id)'} but declares ${options.property ?? 'none'} (check options.property)`);
      const spec = { ...given, id };
      record.property = { id, seed: settings.seed, runsRequested: 0, runs: 0, interrupted: false, timeMs: 0 };
      const progress = searchReporter(run.ledger, planned.runName, id);
      try {
        record.property = await runProperty(spec, settings.seed, settings.property, wire, settings.timeoutMs, progress.run);
      } finally {
        progress.done(record.property.runs);
      }
    },
  };
  const judged = (async () => {
    // A rule of revisions the target does not speak cannot be exercised on it.
    if (applies && !revision) {
      // Detection initializes with the run's key: without one, nothing is found, and that is the reason.
      const none = target.noKeyReason ? `no detected revision (detection needs a key; ${target.noKeyReason})` : 'no detected revision';
      const why = `applies to ${applies.join(', ')}; the target speaks ${target.revisions.join(', ') || none}`;
      // The service's own refusal to negotiate (not the user's missing key) is its failure, with the evidence.
      if (target.revisionRefusal && !target.noKeyReason) throw new CheckFailure(`${why}: ${target.revisionRefusal}`, `a negotiated revision among ${applies.join(', ')}, or a refusal naming the supported versions`, target.revisionRefusal);
      // Speaking some revisions and not others is the service's right: the rule does not concern it.
      if (!target.noKeyReason && target.revisions.length > 0) c.notApplicable(why);
      c.notTestable(why);
    }
    await inCheck(name, () => body(c));
  })();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), deadlineMs);
  });
  try {
    if ((await Promise.race([judged, deadline])) === 'deadline') {
      abort.abort(new Error('the check\'s deadline'));
      judged.catch(() => {}); // it ends as it may: its verdict is no longer wanted
      const durationMs = Math.round(performance.now() - started);
      // Held up by the harness's own machine for a good part of it: not the check's fault, nor the service's.
      const held = stalledMs(started);
      if (held >= 0.25 * deadlineMs) return { ...record, observations: [...record.observations], wire: [...wire], status: 'not-testable', reason: `not judged: the check did not end within its deadline of ${deadlineMs} ms, while the harness's own event loop was held ${Math.round(held)} ms of it (its machine was starved)`, durationMs };
      return { ...record, observations: [...record.observations], wire: [...wire], status: 'error', message: `harness error: the check did not end within its deadline of ${deadlineMs} ms`, durationMs };
    }
    record.status = 'pass';
  } catch (err) {
    await judge(record, err, wire, target, run);
  } finally {
    clearTimeout(timer);
    record.durationMs = Math.round(performance.now() - started);
    // Keys learnt during the check (bootstrap replies) were recorded before they were known secrets.
    if (extraSecrets.length > 0) record.wire = wire.map((x) => JSON.parse(redact(JSON.stringify(x), secrets())) as Exchange);
  }
  return record;
}

/** What the error that ended a check makes of its record: not testable, a failure, or the harness's own error. */
async function judge(record: CheckRecord, err: unknown, wire: readonly Exchange[], target: TargetInfo, run: RunState): Promise<void> {
  if (err instanceof NotTestable) {
    record.status = 'not-testable';
    record.reason = err.reason;
    if (err.notApplicable) record.notApplicable = true;
    return;
  }
  // The target went away (the wire client found it, or an SDK client met a connection that no longer opens):
  // what the check saw says nothing of the service.
  const lost = err instanceof TargetLost ? err.reason : await lostTarget(wire, target.mcpUrl, run);
  if (lost) {
    record.status = 'not-testable';
    record.reason = `not judged: the target stopped answering (${lost})`;
    record.targetLost = true;
    return;
  }
  const found = (err as { property?: PropertyRecord }).property;
  if (found) record.property = found;
  // The harness's own machine held it up (src/kit/harness-load.ts): nothing is known of the service.
  const starved = harnessCause(err) ?? harnessCause(found ? (err as { cause?: unknown }).cause : undefined);
  if (starved) {
    record.status = 'not-testable';
    record.reason = starved;
    return;
  }
  record.status = 'fail';
  record.message = err instanceof Error ? err.message : String(err);
  // The harness's own breakage (a TypeError in a suite) says nothing about the service: the run errs.
  if (!isVerdict(err)) {
    record.status = 'error';
    record.message = `harness error: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`;
    if (err instanceof Error && err.stack) record.observations.push(`stack: ${err.stack.split('\n').slice(1, 4).map((l) => l.trim()).join(' | ')}`);
  }
  const e = err as { expected?: unknown; actual?: unknown };
  if (e.expected !== undefined || e.actual !== undefined) {
    record.expected = e.expected;
    record.actual = e.actual;
  }
}
