/** Puts a load run together (thresholds, baseline, verdict) and writes its four files: the load reports' door. */
import { writeFileSync } from 'node:fs';
import { cpus, arch, platform } from 'node:os';
import { join, resolve } from 'node:path';
import { fmt } from '../../src/kit/numbers.js';
import { scrubDeep, scrubText, Secrets } from '../../src/kit/scrub.js';
import { LOAD_HTML, renderLoadHtml } from './load-html.js';
import { LOAD_JSON, renderLoadJson } from './load-json.js';
import { LOAD_JUNIT, renderLoadJunit } from './load-junit.js';
import { LOAD_MD, renderLoadMd } from './load-md.js';
import { LOAD_SCHEMA_VERSION, type BaselineComparison, type LoadReport, type LoadSettings, type ScenarioResult, type ThresholdResult } from './load-results.js';
import { makeDir } from '../../src/kit/make-dir.js';

export function machine(): LoadReport['machine'] {
  const list = cpus();
  return { cpus: list.length, model: list[0]?.model.trim() ?? 'unknown', node: process.version, platform: platform(), arch: arch() };
}

/** One line: how many thresholds hold, and the failing ones with their values. */
export function verdictOf(thresholds: ThresholdResult[]): { verdict: string; exitCode: 0 | 1 } {
  const failed = thresholds.filter((t) => !t.ok);
  if (failed.length === 0) return { verdict: `PASS: all ${thresholds.length} thresholds hold`, exitCode: 0 };
  const shown = failed.slice(0, 5).map((t) => `${t.scenario} ${t.expression} (actual ${t.actual === null ? 'not measured' : fmt(t.actual, 4)})`);
  return { verdict: `FAIL: ${failed.length} of ${thresholds.length} thresholds fail: ${shown.join('; ')}${failed.length > 5 ? `; and ${failed.length - 5} more` : ''}`, exitCode: 1 };
}

export function assembleLoadReport(parts: {
  tool: LoadReport['tool'];
  target: LoadReport['target'];
  settings: LoadSettings;
  startedAt: string;
  durationMs: number;
  scenarios: ScenarioResult[];
  thresholds: ThresholdResult[];
  baseline?: BaselineComparison;
}): LoadReport {
  const { verdict, exitCode } = verdictOf(parts.thresholds);
  return {
    schemaVersion: LOAD_SCHEMA_VERSION,
    tool: parts.tool,
    target: parts.target,
    machine: machine(),
    settings: parts.settings,
    startedAt: parts.startedAt,
    durationMs: parts.durationMs,
    scenarios: parts.scenarios,
    thresholds: parts.thresholds,
    ...(parts.baseline && { baseline: parts.baseline }),
    verdict,
    exitCode,
  };
}

/** The secrets of a load run: its keys and the credentials in its base URLs (the target's and the baseline's). */
export function loadSecrets(parts: { apiKey?: string; baseUrl?: string; baselineUrl?: string; baselineKey?: string; admin?: { url: string; token: string } }): Secrets {
  return Secrets.from({ values: [parts.apiKey, parts.baselineKey, parts.admin?.token], urls: [parts.baseUrl, parts.baselineUrl, parts.admin?.url] });
}

/**
 * The door of the load reports, the only code that writes them: scrubs `report` of `secrets`, then writes
 * load.json, load.md, load.html and load-junit.xml from the scrubbed copy. Returns their absolute paths and
 * that copy (print from it). The caller then has the report folder's composer (src/reports/folder) rewrite
 * a conformance report.html beside them with the load section: load/report never reaches into src/reports.
 */
export function writeLoadReports(report: LoadReport, dir: string, secrets: Secrets): { files: string[]; report: LoadReport } {
  const clean = scrubDeep(report, secrets);
  makeDir(dir);
  const texts: [string, string][] = [[LOAD_JSON, renderLoadJson(clean)], [LOAD_MD, renderLoadMd(clean)], [LOAD_HTML, renderLoadHtml(clean)], [LOAD_JUNIT, renderLoadJunit(clean)]];
  const files = texts.map(([file, text]) => {
    const path = resolve(join(dir, file));
    writeFileSync(path, scrubText(text, secrets));
    return path;
  });
  return { files, report: clean };
}
