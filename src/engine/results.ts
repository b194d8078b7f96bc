import type { HarnessLoad } from '../kit/harness-load.js';
import { CATALOG } from '../catalog/index.js';
import { REVISIONS, type Level, type Requirement, type Revision } from '../catalog/types.js';
import type { CheckRecord, RequirementStatus } from './verdict.js';

export interface RequirementResult {
  id: string;
  group: string;
  level: Level;
  source: string;
  text: string;
  /** The revisions the rule applies to, when it depends on the revision: its checks ran once per revision spoken. */
  revisions?: Revision[];
  status: RequirementStatus;
  /** Set when `--baseline` lists this id as an expected failure. */
  baseline?: 'expected-failure' | 'stale';
  checks: CheckRecord[];
}

/**
 * What the run consumed of the deployment: a release engineer pointing the harness at staging is told
 * what it cost. Mails: the spec's bootstrap "also emails a claim link to the human", one per workspace.
 */
export interface Consumption {
  /** Bootstrap requests the run was allowed (`--bootstrap-budget`); null: unbounded (a target the harness owns). */
  bootstrapBudget: number | null;
  requests: number;
  bootstraps: number;
  workspaces: number;
  mails: number;
  blocksCreated: number;
  /** 429s waited out, and the time spent waiting (429s and the client-side bucket). */
  rateLimited: number;
  waitedMs: number;
  waitBudgetMs: number;
  /** Bootstrap requests granted, by purpose. */
  bootstrapShares: Record<string, number>;
  /** Bootstrap requests purposes wanted beyond their share of the budget. */
  beyondBudget?: Record<string, number>;
  /** Present (false) when the run could not bootstrap at all (an MCP endpoint): its budget goes unsaid. */
  canBootstrap?: false;
}

/**
 * The target stopped accepting connections mid-run: when the first check met it, the last request that got a
 * reply before then, and the rows its checks left unjudged. The run then has no verdict (exit 2).
 */
export interface TargetLoss {
  /** When the first request that found the target gone was sent (ISO), and how far into the run. */
  at: string;
  afterMs: number;
  /** The last request that got a reply before then: method, path and time. */
  lastReached?: string;
  /** Requirement ids left without a verdict (a check of theirs met the loss, and none failed before it). */
  unjudged: string[];
}

/** The loss, from the checks' records: undefined when no check met a target that had gone. */
export function targetLoss(records: readonly CheckRecord[], requirements: readonly RequirementResult[], startedAt: Date): TargetLoss | undefined {
  const lost = records.filter((r) => r.targetLost);
  if (lost.length === 0) return undefined;
  const failedAt = (r: CheckRecord) => r.wire.filter((x) => !x.response && x.error !== undefined).map((x) => Date.parse(x.startedAt));
  const at = Math.min(...lost.flatMap(failedAt).filter((t) => !Number.isNaN(t)), Date.now());
  const reached = records.flatMap((r) => r.wire).filter((x) => x.response && Date.parse(x.startedAt) <= at)
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt))[0];
  const path = (url: string) => {
    try {
      return new URL(url).pathname;
    } catch {
      return url;
    }
  };
  return {
    at: new Date(at).toISOString(),
    afterMs: Math.max(0, at - startedAt.getTime()),
    ...(reached && { lastReached: `${reached.request.method} ${path(reached.request.url)} at ${reached.startedAt} (HTTP ${reached.response!.status})` }),
    unjudged: requirements.filter((r) => r.status === 'not-testable' && r.checks.some((c) => c.targetLost)).map((r) => r.id),
  };
}

export interface Totals {
  pass: number; fail: number; warn: number; notTestable: number; untested: number; error: number;
  /** Rows whose rule does not apply to the target (every check says so: a revision it does not speak, sessions it does not keep), apart from notTestable. */
  notApplicable?: number;
}

export interface Results {
  schemaVersion: 1;
  tool: { name: string; version: string };
  target: { kind: string; baseUrl: string; mcpUrl: string };
  profile: string;
  protocolRevision: string;
  seed: number;
  strict: boolean;
  startedAt: string;
  durationMs: number;
  requirements: RequirementResult[];
  totals: Totals;
  consumption?: Consumption;
  /** The run's property search budget (`--budget`) and how it was split: searches selected, each one's time box. */
  propertyBudget?: { budgetMs: number; searches: number; timeBoxMs: number };
  /** Set when the target stopped answering mid-run: the run then has no verdict (exit 2). */
  targetLost?: TargetLoss;
  /** How busy the harness's own machine was during the run (src/kit/harness-load.ts). */
  harness?: HarnessLoad;
  /** Why the run passes or fails, in one line. */
  verdict: string;
  /** 0 conforms, 1 does not, 2 the harness erred (no verdict). */
  exitCode: 0 | 1 | 2;
}

/**
 * A requirement's status from its checks: any failing check fails a MUST (warns for SHOULD, MAY, INFO);
 * else a check the harness broke on makes it an error (no verdict); no check at all leaves it untested.
 * A pass needs proof: every check that concerns the target passed (not-applicable ones aside, such as a
 * revision it does not speak); one not-testable check among passes leaves the row not testable.
 */
export function requirementStatus(level: Level, checks: CheckRecord[]): RequirementStatus {
  if (checks.length === 0) return 'untested';
  if (checks.some((c) => c.status === 'fail')) return level === 'MUST' ? 'fail' : 'warn';
  if (checks.some((c) => c.status === 'error')) return 'error';
  const concerning = checks.filter((c) => !c.notApplicable);
  // Every check said the rule does not concern the target: not applicable, never counted as not testable.
  if (concerning.length === 0) return 'not-applicable';
  return concerning.every((c) => c.status === 'pass') ? 'pass' : 'not-testable';
}

/** A row no check could judge because its rule does not concern the target (each check said not applicable, with why). */
export function notApplicable(r: Pick<RequirementResult, 'status'>): boolean {
  return r.status === 'not-applicable';
}

export function aggregate(records: CheckRecord[], selected: (r: Requirement) => boolean, baseline: Set<string>): { requirements: RequirementResult[]; totals: Totals } {
  const requirements: RequirementResult[] = [];
  for (const r of CATALOG) {
    if (!selected(r)) continue;
    const checks = records.filter((c) => c.requirementIds.includes(r.id));
    const status = requirementStatus(r.level, checks);
    const result: RequirementResult = { id: r.id, group: r.group, level: r.level, source: r.source, text: r.text, ...(r.revisions && { revisions: r.revisions }), status, checks };
    if (baseline.has(r.id)) result.baseline = status === 'fail' || status === 'warn' ? 'expected-failure' : 'stale';
    requirements.push(result);
  }
  const totals: Totals = { pass: 0, fail: 0, warn: 0, notTestable: 0, untested: 0, error: 0, notApplicable: 0 };
  for (const r of requirements) {
    if (r.status === 'not-applicable') totals.notApplicable! += 1;
    else if (r.status === 'not-testable') totals.notTestable += 1;
    else totals[r.status] += 1;
  }
  return { requirements, totals };
}

/** `not-applicable` in a cell: the rule does not apply to that revision, or does not concern the target at all. */
export type RevisionCell = RequirementStatus | 'not-run';

/** The check runs behind a run's rows: a check verifying several rows counted once, once per revision it ran under. */
export function checkRunCount(results: Pick<Results, 'requirements'>): number {
  return new Set(results.requirements.flatMap((r) => r.checks.map((c) => `${c.suite} ${c.name} ${c.revision ?? ''}`))).size;
}

/** The revision x row matrix: the revision-dependent requirements and the revisions their checks spoke. */
export interface RevisionMatrix {
  revisions: Revision[];
  rows: { id: string; level: Level; cells: Record<string, RevisionCell> }[];
}

/**
 * Per revision-dependent requirement, its status under each revision the run spoke: from that revision's
 * checks alone (as `requirementStatus`); `not-applicable` where the rule does not apply to the revision,
 * `not-run` where it does but no check ran under it. Empty when no revision-dependent check spoke one.
 */
export function revisionMatrix(requirements: RequirementResult[]): RevisionMatrix {
  const dependent = requirements.filter((r) => r.revisions);
  const spoken = new Set(dependent.flatMap((r) => r.checks.map((c) => c.revision).filter((v): v is Revision => v !== undefined)));
  const revisions = REVISIONS.filter((rev) => spoken.has(rev));
  if (revisions.length === 0) return { revisions, rows: [] };
  const rows = dependent.map((r) => ({
    id: r.id,
    level: r.level,
    cells: Object.fromEntries(revisions.map((rev): [string, RevisionCell] => {
      if (!r.revisions!.includes(rev)) return [rev, 'not-applicable'];
      const checks = r.checks.filter((c) => c.revision === rev);
      return [rev, checks.length === 0 ? 'not-run' : requirementStatus(r.level, checks)];
    })),
  }));
  return { revisions, rows };
}

/** The interop matrix: per SDK client, its status at each step, and the revision it negotiated over HTTP. */
export interface ClientMatrix {
  steps: string[];
  rows: { client: string; sdk: string; revision?: string; cells: Record<string, RevisionCell> }[];
}

/** From the interop rows (`interop-<client>-<step>`, tagged with the client): one line per client run. */
export function clientMatrix(requirements: RequirementResult[]): ClientMatrix {
  const tagged = requirements.filter((r) => r.checks.some((c) => c.interop));
  const steps: string[] = [];
  const rows = new Map<string, ClientMatrix['rows'][number]>();
  for (const r of tagged) {
    const tag = r.checks.find((c) => c.interop)!.interop!;
    const step = r.id.slice(`interop-${tag.client}-`.length);
    if (!steps.includes(step)) steps.push(step);
    const row = rows.get(tag.client) ?? { client: tag.client, sdk: tag.sdk, cells: {} };
    if (tag.mode === 'http' && tag.revision) row.revision = tag.revision;
    row.cells[step] = r.status;
    rows.set(tag.client, row);
  }
  for (const row of rows.values()) for (const step of steps) row.cells[step] ??= 'not-run';
  return { steps, rows: [...rows.values()] };
}

/**
 * MUST rows that concern the target but that the run could not exercise at all: no check passed, and not
 * all of them for being not applicable (stdio rules on an HTTP target). The summary's first lines name them.
 * (A row with a pass beside a not-testable check is not testable too, but it was exercised in part.)
 */
export function untestableMusts(requirements: RequirementResult[]): RequirementResult[] {
  return requirements.filter((r) => r.level === 'MUST' && r.status === 'not-testable'
    && !r.checks.some((c) => c.status === 'pass') && r.checks.some((c) => c.status === 'not-testable' && !c.notApplicable));
}

/**
 * Exit 0 when no MUST fails (and, under --strict, no SHOULD fails and no MUST is wholly not testable) outside
 * the baseline, no selected row went untested, and no baseline entry is stale. A check the harness broke on
 * withholds the verdict: exit 2. A failing MAY or INFO row never fails the run: --strict is about SHOULD.
 */
export function decide(requirements: RequirementResult[], strict: boolean, loss?: TargetLoss): { exitCode: 0 | 1 | 2; verdict: string } {
  const errors = requirements.filter((r) => r.status === 'error');
  if (errors.length > 0) {
    return { exitCode: 2, verdict: `harness error: ${errors.length} requirement(s) could not be judged because the harness itself failed (${list(errors)}); no verdict on the service` };
  }
  // Like a target unreachable at the start: no verdict, but what was found before the loss is said.
  if (loss) {
    const failedBefore = requirements.filter((r) => r.status === 'fail');
    return {
      exitCode: 2,
      verdict: `no verdict: the target stopped answering at ${loss.at} (${(loss.afterMs / 1000).toFixed(1)} s into the run; the last request that reached it: ${loss.lastReached ?? 'none'}); ${loss.unjudged.length} requirement(s) left unjudged: ${loss.unjudged.slice(0, 5).join(', ')}${loss.unjudged.length > 5 ? ', ...' : ''}`
        + (failedBefore.length > 0 ? `; before that, ${failedBefore.length} requirement(s) failed: ${list(failedBefore)}` : ''),
    };
  }
  // One rule per row (failsRun, which the reports use too); the verdict names the rows by why they fail.
  const failingRows = requirements.filter((r) => failsRun(r, strict));
  const failing = failingRows.filter((r) => r.status === 'fail' || r.status === 'warn');
  const untested = failingRows.filter((r) => r.status === 'untested');
  const unproven = failingRows.filter((r) => r.status === 'not-testable' && untestableMusts([r]).length > 0);
  const stale = failingRows.filter((r) => r.baseline === 'stale');
  const expected = requirements.filter((r) => r.baseline === 'expected-failure').length;
  if (failingRows.length === 0) {
    return { exitCode: 0, verdict: 'conforms: no MUST requirement fails' + (strict ? ', no SHOULD fails and every MUST was exercised (strict)' : '') + (expected ? ` outside the baseline (${expected} expected failure${expected === 1 ? '' : 's'})` : '') };
  }
  const parts: string[] = [];
  if (failing.length) parts.push(`${failing.length} requirement(s) fail: ${list(failing)}`);
  if (untested.length) parts.push(`${untested.length} selected requirement(s) have no check: ${list(untested)}`);
  if (unproven.length) parts.push(`${unproven.length} MUST requirement(s) not testable (strict): ${list(unproven)}`);
  if (stale.length) parts.push(`${stale.length} baseline entr${stale.length === 1 ? 'y is' : 'ies are'} stale (now passing): ${stale.map((r) => r.id).join(', ')}`);
  return { exitCode: 1, verdict: `does not conform: ${parts.join('; ')}` };
}

/** Whether this requirement makes the run fail (`decide`'s rule for one row; the reports list these). */
export function failsRun(r: RequirementResult, strict: boolean): boolean {
  if (r.baseline === 'stale') return true;
  if (r.baseline === 'expected-failure') return false;
  if (r.status === 'fail' || r.status === 'untested' || r.status === 'error') return true;
  return strict && ((r.status === 'warn' && r.level === 'SHOULD') || (r.status === 'not-testable' && untestableMusts([r]).length > 0));
}

function list(rows: RequirementResult[]): string {
  return `${rows.slice(0, 5).map((r) => r.id).join(', ')}${rows.length > 5 ? ', ...' : ''}`;
}
