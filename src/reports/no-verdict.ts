/**
 * The reports of a run that ended without a verdict (exit 2: bad profile, an unreachable target, a refused key,
 * an error inside the harness). The folder then says what this run did, never what an earlier one found:
 * results.json with no requirement, totals zero, `verdict: "no verdict: <why>"` and exitCode 2; a summary.md
 * and a junit.xml (one errored case, so CI shows red) that say so. report.html is an earlier run's: removed.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { xmlAttr, xmlEscape } from '../kit/escape.js';
import { mdText } from '../kit/markdown.js';
import { scrubDeep, scrubText, type Secrets } from '../kit/scrub.js';
import { packageInfo } from '../kit/package-root.js';
import type { Results } from '../engine/results.js';
import type { RunOptions } from '../engine/run-options.js';
import { claimReportDir } from './index.js';

/** results.json of a run that ended on `why` before any verdict. */
export function noVerdictResults(options: RunOptions, why: string, startedAt: Date, durationMs: number): Results {
  return {
    schemaVersion: 1,
    tool: packageInfo(),
    target: { kind: options.target, baseUrl: options.baseUrl ?? '', mcpUrl: options.mcpUrl ?? '' },
    profile: options.profile,
    protocolRevision: 'none detected',
    seed: options.seed,
    strict: options.strict,
    startedAt: startedAt.toISOString(),
    durationMs: Math.max(0, Math.round(durationMs)),
    requirements: [],
    totals: { pass: 0, fail: 0, warn: 0, notTestable: 0, untested: 0, error: 0 },
    // One line, as the console's error line.
    verdict: `no verdict: ${why.split('\n').map((l) => l.trim()).filter(Boolean).join(' | ')}`,
    exitCode: 2,
  };
}

export function renderNoVerdictSummary(results: Results): string {
  return [
    '## MCP conformance: ERROR',
    '',
    `**${mdText(results.verdict)}**`,
    '',
    `Target: ${mdText(`${results.target.kind}${results.target.baseUrl ? ` ${results.target.baseUrl}` : ''}`)}, seed ${results.seed}. No requirement was judged (exit 2).`,
    '',
  ].join('\n');
}

export function renderNoVerdictJunit(results: Results): string {
  const seconds = (results.durationMs / 1000).toFixed(3);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="MCP conformance" tests="1" failures="0" errors="1" skipped="0" time="${seconds}">`,
    `  <testsuite name="run" tests="1" failures="0" errors="1" skipped="0" time="${seconds}">`,
    `    <testcase classname="run" name="conformance run" time="${seconds}">`,
    `      <error message="${xmlAttr(results.verdict)}">${xmlEscape(results.verdict)}</error>`,
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * Writes the no-verdict reports to `dir` (claimed first: an earlier run's files go), scrubbed of `secrets`.
 * Throws when the folder cannot be written: then nothing of this run can be, and the caller's error line says why.
 */
export function writeNoVerdictReports(results: Results, dir: string, secrets: Secrets): Results {
  claimReportDir(dir);
  const clean = scrubDeep(results, secrets);
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(clean, null, 2)}\n`);
  writeFileSync(join(dir, 'junit.xml'), scrubText(renderNoVerdictJunit(clean), secrets));
  writeFileSync(join(dir, 'summary.md'), scrubText(renderNoVerdictSummary(clean), secrets));
  rmSync(join(dir, 'report.html'), { force: true });
  return clean;
}

/**
 * What a run that threw leaves in its folder: the no-verdict reports, `why` being its error's message (scrubbed
 * by the caller). A folder that cannot be written takes nothing: the run's own error line is the one to print.
 */
export function recordNoVerdict(options: RunOptions, why: string, startedAt: Date, secrets: Secrets): void {
  try {
    writeNoVerdictReports(noVerdictResults(options, why, startedAt, Date.now() - startedAt.getTime()), options.reportDir, secrets);
  } catch {
    // Unwritable: nothing of this run can be written, and claimReportDir said so first where it could.
  }
}
