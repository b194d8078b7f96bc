/** Puts a load run together (thresholds, baseline, verdict) and writes its four files. */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus, arch, platform } from 'node:os';
import { join, resolve } from 'node:path';
import { writeHtml } from '../../src/reports/report-html.js';
import type { Results } from '../../src/results.js';
import { writeLoadHtml } from './load-html.js';
import { writeLoadJson } from './load-json.js';
import { writeLoadJunit } from './load-junit.js';
import { writeLoadMd } from './load-md.js';
import { LOAD_SCHEMA_VERSION, fmt, type BaselineComparison, type LoadReport, type LoadSettings, type ScenarioResult, type ThresholdResult } from './load-results.js';

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

/**
 * Writes load.json, load.md, load.html and load-junit.xml; returns their absolute paths. When a conformance
 * run's results.json is in the same directory, its report.html is written again with the load plots in it.
 */
export function writeLoadReports(report: LoadReport, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files = [writeLoadJson(report, dir), writeLoadMd(report, dir), writeLoadHtml(report, dir), writeLoadJunit(report, dir)].map((f) => resolve(f));
  const conformance = join(dir, 'results.json');
  if (existsSync(conformance)) {
    try {
      writeHtml(JSON.parse(readFileSync(conformance, 'utf8')) as Results, dir);
      files.push(resolve(dir, 'report.html'));
    } catch (err) {
      console.error(`load: report.html not updated (${(err as Error).message})`);
    }
  }
  return files;
}
