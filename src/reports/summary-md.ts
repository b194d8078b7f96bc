import { clientMatrix, notApplicable, revisionMatrix, untestableMusts, type RequirementResult, type Results, type RevisionCell } from '../engine/results.js';
import { mdBlock, mdCell as cell, mdCode, mdText } from '../kit/markdown.js';
import { truncate } from '../kit/text.js';
import { checkLabel, failedChecks, failsRun, formatValue, unexercisedWords } from './common.js';
import { describeConsumption } from './consumption.js';
import { describeProperty, runsText, searchCount } from './property-text.js';

/*
 * summary.md: GitHub-flavoured Markdown to paste on a pull request or append to $GITHUB_STEP_SUMMARY.
 * Order: verdict, totals, what fails the run (with the replay command), warnings, not testable, then the
 * whole requirement matrix collapsed. A PR comment holds at most 65536 characters, so the document is
 * kept under SUMMARY_LIMIT bytes (bytes >= characters) and says what it left out.
 */

export const SUMMARY_LIMIT = 60_000;

/** PASS / FAIL (with a qualifier), no emoji: the one word a reviewer looks for. */
export function statusWord(results: Results): string {
  if (results.exitCode === 2) return 'ERROR';
  if (results.exitCode === 1) return 'FAIL';
  const t = results.totals;
  return t.warn > 0 || t.untested > 0 || results.requirements.some((r) => r.baseline === 'expected-failure') ? 'PASS with notes' : 'PASS';
}

const STATUS_LABEL: Record<RequirementResult['status'], string> = {
  pass: 'pass', fail: 'fail', warn: 'warn', 'not-testable': 'not testable', 'not-applicable': 'not applicable', untested: 'untested', error: 'harness error',
};

function statusLabel(r: RequirementResult): string {
  if (r.baseline === 'expected-failure') return `${STATUS_LABEL[r.status]} (baseline)`;
  if (r.baseline === 'stale') return `${STATUS_LABEL[r.status]} (stale baseline)`;
  return STATUS_LABEL[r.status];
}

/** Expected and actual, inline when short and single-line, else as blocks. */
function expectedActual(expected: unknown, actual: unknown): string {
  const e = truncate(formatValue(expected), 1500);
  const a = truncate(formatValue(actual), 1500);
  if (e.length <= 80 && a.length <= 80 && !e.includes('\n') && !a.includes('\n')) return `- expected: ${mdCode(e)}\n- actual: ${mdCode(a)}`;
  return `expected:\n\n${mdBlock(e, 'json')}\n\nactual:\n\n${mdBlock(a, 'json')}`;
}

/** Failing checks shown per requirement: one requirement must not take the whole comment. */
const MAX_CHECKS = 5;

function failureSection(r: RequirementResult): string {
  const out = [`#### ${mdCode(r.id)} (${r.level})`, '', `Source: ${mdText(r.source)}`, '', `> ${mdText(r.text)}`];
  if (r.baseline === 'stale') {
    out.push('', `Listed in the baseline as an expected failure, but it is ${STATUS_LABEL[r.status]} now: remove ${mdCode(r.id)} from the baseline file.`);
  }
  const failed = failedChecks(r);
  for (const c of failed.slice(0, MAX_CHECKS)) {
    out.push('', `**${mdText(checkLabel(r, c))}**${c.message ? `: ${mdText(truncate(c.message, 600))}` : ''}`, '', expectedActual(c.expected, c.actual));
    if (c.property) out.push(`- ${mdText(truncate(describeProperty(c.property), 800))}`);
    for (const o of c.observations.slice(0, 5)) out.push(`- observed: ${mdText(truncate(o, 300))}`);
    if (c.replay) out.push('', 'Replay:', '', mdBlock(c.replay, 'sh'));
  }
  if (failed.length > MAX_CHECKS) out.push('', `… and ${failed.length - MAX_CHECKS} more failing checks (see report.html).`);
  return out.join('\n');
}

/** Not-testable requirements grouped by their reasons (one target often rules out a whole group for one reason). */
function notTestableLines(reqs: RequirementResult[]): string[] {
  const byReason = new Map<string, RequirementResult[]>();
  for (const r of reqs) {
    const reasons = [...new Set(r.checks.filter((c) => c.status === 'not-testable').map((c) => c.reason ?? 'no reason given'))];
    const key = reasons.map((x) => mdText(truncate(x, 300))).join('; ');
    byReason.set(key, [...(byReason.get(key) ?? []), r]);
  }
  // A row with a passing check beside the not-testable ones was exercised in part: say so.
  const part = (r: RequirementResult) => (r.checks.some((c) => c.status === 'pass') ? ', in part' : '');
  return [...byReason].map(([reason, rs]) => `- ${rs.map((r) => `${mdCode(r.id)} (${r.level}${part(r)})`).join(', ')}: ${reason}`);
}

function matrixRow(r: RequirementResult): string {
  const n = (s: string) => r.checks.filter((c) => c.status === s && !c.notApplicable).length;
  const na = r.checks.filter((c) => c.notApplicable).length;
  const checks = r.checks.length === 0 ? 'none' : `${n('pass')} pass, ${n('fail')} fail, ${n('not-testable')} n/t${na ? `, ${na} n/a` : ''}`;
  return `| ${cell(mdCode(r.id))} | ${cell(mdText(r.group))} | ${r.level} | ${statusLabel(r)} | ${cell(mdText(r.source))} | ${checks} |`;
}

const CELL_LABEL: Record<RevisionCell, string> = {
  pass: 'pass', fail: 'fail', warn: 'warn', 'not-testable': 'n/t', untested: 'untested', error: 'error', 'not-applicable': '—', 'not-run': 'not run',
};

/** The revision x row matrix of the revision-dependent requirements: a header and one line per row. */
function revisionRows(reqs: RequirementResult[]): { header: string; rows: string[] } | undefined {
  const m = revisionMatrix(reqs);
  if (m.rows.length === 0) return undefined;
  return {
    header: `| Requirement | ${m.revisions.join(' | ')} |\n|---|${m.revisions.map(() => '---').join('|')}|`,
    rows: m.rows.map((row) => `| ${cell(mdCode(row.id))} | ${m.revisions.map((rev) => CELL_LABEL[row.cells[rev]!]).join(' | ')} |`),
  };
}

/** The interop matrix, client x step, with the revision each client negotiated over HTTP. */
function clientRows(reqs: RequirementResult[]): { header: string; rows: string[] } | undefined {
  const m = clientMatrix(reqs);
  if (m.rows.length === 0) return undefined;
  return {
    header: `| Client | Revision | ${m.steps.join(' | ')} |\n|---|---|${m.steps.map(() => '---').join('|')}|`,
    rows: m.rows.map((row) => `| ${cell(mdText(row.sdk))} | ${row.revision ?? '—'} | ${m.steps.map((step) => CELL_LABEL[row.cells[step]!]).join(' | ')} |`),
  };
}

/** One row per property check: what it verifies, how far it searched, what it found. */
function propertyRows(reqs: RequirementResult[]): string[] {
  const seen = new Set<string>();
  const rows: string[] = [];
  for (const c of reqs.flatMap((r) => r.checks)) {
    if (!c.property || seen.has(c.property.id)) continue;
    seen.add(c.property.id);
    const p = c.property;
    const runs = p.counterexample !== undefined ? `failed at ${p.runs}` : runsText(p);
    rows.push(`| ${cell(mdCode(p.id))} | ${cell(c.requirementIds.map(mdCode).join(', '))} | ${runs} | ${(p.timeMs / 1000).toFixed(1)} s | ${c.status === 'fail' ? 'fail' : c.status === 'pass' ? 'pass' : 'not testable'} |`);
  }
  return rows;
}

/** Room kept for the closing `</details>` and the truncation note. */
const RESERVE = 1_000;

/** Appends blocks in priority order while they fit the byte budget, and counts the items it left out. */
class Budget {
  private readonly parts: string[] = [];
  private used = 0;
  private full = false;
  omitted = 0;
  constructor(private readonly limit: number) {}

  /**
   * Adds the block if it fits with RESERVE bytes to spare; once one does not fit nothing more is added,
   * so what is shown is always a prefix of the priority order. Headings are not counted as items.
   */
  add(block: string, item = true): boolean {
    const size = Buffer.byteLength(block, 'utf8') + 1;
    if (this.full || this.used + size + RESERVE > this.limit) {
      this.full = true;
      if (item) this.omitted += 1;
      return false;
    }
    this.parts.push(block);
    this.used += size;
    return true;
  }

  /** Always added (the header, closers, the note): RESERVE keeps room for these. */
  force(block: string): void {
    this.parts.push(block);
    this.used += Buffer.byteLength(block, 'utf8') + 1;
  }

  text(): string {
    return `${this.parts.join('\n')}\n`;
  }
}

/**
 * The MUST rows that concern the target but were never exercised (every check not testable): a pass that
 * proved nothing there must not read as a full pass, so they come right under the verdict.
 */
function unexercised(reqs: RequirementResult[], strict: boolean): string[] {
  const rows = untestableMusts(reqs);
  if (rows.length === 0) return [];
  const ids = rows.slice(0, 20).map((r) => mdCode(r.id)).join(', ') + (rows.length > 20 ? `, and ${rows.length - 20} more` : '');
  const { head, why } = unexercisedWords(rows.length, strict);
  return [`**${head}** ${why}: ${ids}. The reasons are under "Not testable".`, ''];
}

/** The Markdown summary of a run, at most `limit` bytes. */
export function renderSummary(results: Results, limit = SUMMARY_LIMIT): string {
  const t = results.totals;
  const b = new Budget(limit);
  const reqs = results.requirements;
  const failing = reqs.filter((r) => failsRun(r, results.strict));
  const warnings = reqs.filter((r) => r.status === 'warn' && !failing.includes(r) && r.baseline !== 'expected-failure');
  const known = reqs.filter((r) => r.baseline === 'expected-failure');
  const notTestable = reqs.filter((r) => r.status === 'not-testable');
  const inapplicable = reqs.filter(notApplicable);
  const untested = reqs.filter((r) => r.status === 'untested');

  const target = `${mdCode(results.target.kind)} ${mdCode(results.target.mcpUrl || results.target.baseUrl)}`;
  b.force([
    `## MCP conformance: ${statusWord(results)}`,
    '',
    `**${mdText(truncate(results.verdict, 1000))}**`,
    '',
    ...unexercised(reqs, results.strict),
    `Target ${target}, profile ${mdCode(results.profile)}, protocol ${mdCode(results.protocolRevision)}, seed ${mdCode(String(results.seed))}${results.strict ? ', strict' : ''}; ${(results.durationMs / 1000).toFixed(1)} s; ${mdText(`${results.tool.name} ${results.tool.version}, started ${results.startedAt}`)}.`,
    '',
    ...(results.consumption ? [`Consumed: ${mdText(describeConsumption(results.consumption))}.`, ''] : []),
    ...(results.harness?.busy ? [`Harness: ${mdText(results.harness.busy)}.`, ''] : []),
    '| Status | Requirements |',
    '|---|---:|',
    `| pass | ${t.pass} |`,
    `| fail | ${t.fail} |`,
    `| warn | ${t.warn} |`,
    `| not testable | ${t.notTestable} |`,
    ...(t.notApplicable ? [`| not applicable | ${t.notApplicable} |`] : []),
    `| untested | ${t.untested} |`,
    ...(t.error ? [`| harness error | ${t.error} |`] : []),
    `| **total** | ${reqs.length} |`,
  ].join('\n'));

  if (failing.length) {
    b.add(`\n### Failing (${failing.length})\n\nThese fail the run${results.strict ? ' (strict: failing SHOULDs included)' : ''}.`, false);
    for (const r of failing) b.add(`\n${failureSection(r)}`);
  }
  if (warnings.length) {
    b.add(`\n### Warnings (${warnings.length})\n\nNot met; below MUST, these fail the run only with --strict.`, false);
    for (const r of warnings) b.add(`\n${failureSection(r)}`);
  }
  if (known.length) {
    b.add(`\n### Known failures (baseline, ${known.length})\n\nListed in the baseline file: reported, not counted against the run.\n`, false);
    for (const r of known) b.add(`- ${mdCode(r.id)} (${r.level}): ${failedChecks(r).map((c) => mdText(truncate(c.message ?? c.name, 200))).join('; ')}`);
  }
  if (notTestable.length) {
    b.add(`\n### Not testable (${notTestable.length})\n`, false);
    for (const line of notTestableLines(notTestable)) b.add(line);
  }
  if (inapplicable.length) {
    b.add(`\n### Not applicable (${inapplicable.length})\n\nThe rule does not concern this target; not counted as not testable.\n`, false);
    for (const line of notTestableLines(inapplicable)) b.add(line);
  }
  if (untested.length) {
    b.add(`\n### Untested (${untested.length})\n\nNo check verifies ${untested.length === 1 ? 'this requirement' : 'these requirements'}: ${untested.slice(0, 100).map((r) => mdCode(r.id)).join(', ')}${untested.length > 100 ? `, and ${untested.length - 100} more` : ''}.`);
  }

  const properties = propertyRows(reqs);
  if (properties.length) {
    // The heading counts searches as the console does (propertyBudget.searches); a row is a property, searched once per revision it runs under.
    const n = searchCount(results);
    b.add(`\n### Properties (${n} search${n === 1 ? '' : 'es'})\n\nfast-check searches with seed ${mdCode(String(results.seed))}, one row per property (a property of revision-dependent rows searches once per revision); a failure is shrunk to a minimal counterexample and replays with its path.\n\n| Property | Requirements | Runs | Time | Status |\n|---|---|---:|---:|---|`, false);
    for (const row of properties) b.add(row);
  }

  const byRevision = revisionRows(reqs);
  if (byRevision) {
    b.add(`\n### By protocol revision (${byRevision.rows.length})\n\nRequirements that depend on the revision ran once per revision the target speaks, each with that revision's headers (—: not applicable, to the revision or to the target; n/t: not testable).\n\n${byRevision.header}`, false);
    for (const row of byRevision.rows) b.add(row);
  }

  const byClient = clientRows(reqs);
  if (byClient) {
    b.add(`\n### SDK clients (${byClient.rows.length})\n\nEach official SDK client ran as its own program, configured as an \`mcpServers\` entry (URL plus Authorization header), and through the stdio proxy; rows \`interop-<client>-<step>\` (—: does not apply to this target; n/t: not testable, e.g. its runtime is missing).\n\n${byClient.header}`, false);
    for (const row of byClient.rows) b.add(row);
  }

  const matrixOpened = b.add([
    '', '<details>', `<summary>Requirement matrix (${reqs.length})</summary>`, '',
    '| Requirement | Group | Level | Status | Source | Checks |',
    '|---|---|---|---|---|---|',
  ].join('\n'), false);
  if (matrixOpened) {
    for (const r of reqs) b.add(matrixRow(r));
    b.force('\n</details>');
  }
  if (b.omitted > 0) {
    b.force(`\n_Truncated to fit a pull-request comment: ${b.omitted} more item(s) left out. The complete results are in report.html, junit.xml and results.json._`);
  }
  return b.text();
}

