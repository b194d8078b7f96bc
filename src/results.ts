import { CATALOG } from './catalog/index.js';
import { REVISIONS, type Level, type Requirement, type Revision } from './catalog/types.js';
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
}

export interface Totals { pass: number; fail: number; warn: number; notTestable: number; untested: number }

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
  /** Why the run passes or fails, in one line. */
  verdict: string;
  exitCode: 0 | 1;
}

/**
 * A requirement's status from its checks: any failing check fails a MUST (warns for SHOULD, MAY, INFO);
 * all checks not testable makes it not testable; no check at all leaves it untested.
 */
export function requirementStatus(level: Level, checks: CheckRecord[]): RequirementStatus {
  if (checks.length === 0) return 'untested';
  if (checks.some((c) => c.status === 'fail')) return level === 'MUST' ? 'fail' : 'warn';
  if (checks.every((c) => c.status === 'not-testable')) return 'not-testable';
  return 'pass';
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
  const totals: Totals = { pass: 0, fail: 0, warn: 0, notTestable: 0, untested: 0 };
  for (const r of requirements) {
    if (r.status === 'not-testable') totals.notTestable += 1;
    else totals[r.status] += 1;
  }
  return { requirements, totals };
}

export type RevisionCell = RequirementStatus | 'not-applicable' | 'not-run';

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

/** Exit 0 when no MUST fails (and no SHOULD under --strict) outside the baseline, and no baseline entry is stale. */
export function decide(requirements: RequirementResult[], strict: boolean): { exitCode: 0 | 1; verdict: string } {
  const failing = requirements.filter((r) => (r.status === 'fail' || (strict && r.status === 'warn')) && r.baseline !== 'expected-failure');
  const stale = requirements.filter((r) => r.baseline === 'stale');
  const expected = requirements.filter((r) => r.baseline === 'expected-failure').length;
  if (failing.length === 0 && stale.length === 0) {
    return { exitCode: 0, verdict: 'conforms: no MUST requirement fails' + (strict ? ' and no SHOULD (strict)' : '') + (expected ? ` outside the baseline (${expected} expected failure${expected === 1 ? '' : 's'})` : '') };
  }
  const parts: string[] = [];
  if (failing.length) parts.push(`${failing.length} requirement(s) fail: ${failing.slice(0, 5).map((r) => r.id).join(', ')}${failing.length > 5 ? ', ...' : ''}`);
  if (stale.length) parts.push(`${stale.length} baseline entr${stale.length === 1 ? 'y is' : 'ies are'} stale (now passing): ${stale.map((r) => r.id).join(', ')}`);
  return { exitCode: 1, verdict: `does not conform: ${parts.join('; ')}` };
}
