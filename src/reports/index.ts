import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Results } from '../results.js';
import { scrubDeep, scrubText, Secrets } from '../kit/scrub.js';
import type { TargetInfo } from '../target-info.js';
import { renderHtml } from './report-html.js';
import { renderJunit } from './junit.js';
import { renderSummary } from './summary-md.js';
import { LOAD_JSON, loadReportProblems } from '../../load/report/load-json.js';
import type { LoadReport } from '../../load/report/load-results.js';

/*
 * The door of the conformance reports: the only code that writes them. A run's results are scrubbed of the
 * run's secrets once (src/kit/scrub.ts), then every file is rendered from the scrubbed copy, which
 * is also what the CLI prints from. The renderers are pure (results in, text out) and write nothing.
 */

/** Every file in a report directory after a run, in the order the CLI lists them. */
export const REPORT_FILES: string[] = ['results.json', 'junit.xml', 'summary.md', 'report.html'];

/** What a conformance run holds that is secret: its keys, tokens, session, header values, URL credentials. */
export interface ConformanceSecretInputs {
  headers?: Record<string, string>;
  apiKey?: string;
  otherKey?: string;
  revokedKey?: string;
  baseUrl?: string;
  mcpUrl?: string;
  mailboxUrl?: string;
}

/** The run's secrets, from its options and (once prepared) the target it ran against. */
export function conformanceSecrets(options: ConformanceSecretInputs, info?: TargetInfo): Secrets {
  const stdioEnv = Object.entries(info?.stdio?.env ?? {}).filter(([k]) => /key|token|secret|password/i.test(k)).map(([, v]) => v);
  return Secrets.from({
    values: [
      options.apiKey, options.otherKey, options.revokedKey,
      info?.apiKey, info?.otherKey, info?.revokedKey, info?.admin?.token, info?.broker?.token, info?.sessionId, ...stdioEnv,
    ],
    headers: { ...info?.headers, ...options.headers },
    urls: [options.baseUrl, options.mcpUrl, options.mailboxUrl, info?.baseUrl, info?.mcpUrl, info?.mailboxUrl, info?.admin?.url, info?.broker?.url],
  });
}

/** A line for the console, scrubbed like the reports. */
export function scrubLine(line: string, secrets: Secrets): string {
  return scrubText(line, secrets);
}

/** A valid load.json in the report directory (`npm run load` writes it, scrubbed), so one report shows both runs. */
function loadBeside(dir: string): LoadReport | undefined {
  const path = join(dir, LOAD_JSON);
  if (!existsSync(path)) return undefined;
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return loadReportProblems(value).length === 0 ? (value as LoadReport) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Scrubs `results` with `secrets`, writes results.json and (unless `resultsOnly`) junit.xml, summary.md and
 * report.html to `dir`, and returns the scrubbed results: print from these, never from the originals.
 */
export function writeReports(results: Results, dir: string, secrets: Secrets, resultsOnly = false): Results {
  const clean = scrubDeep(results, secrets);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(clean, null, 2)}\n`);
  if (resultsOnly) return clean;
  const load = loadBeside(dir);
  const texts: Record<string, string> = {
    'junit.xml': renderJunit(clean),
    'summary.md': renderSummary(clean),
    'report.html': renderHtml(clean, load && scrubDeep(load, secrets)),
  };
  for (const [file, text] of Object.entries(texts)) writeFileSync(join(dir, file), scrubText(text, secrets));
  return clean;
}

/**
 * report.html again, with the load plots, after `npm run load` wrote load.json beside a conformance run's
 * results.json. Returns the file written, or undefined when there is no conformance run in `dir`.
 */
export function rewriteHtmlWithLoad(dir: string, secrets: Secrets): string | undefined {
  const path = join(dir, 'results.json');
  if (!existsSync(path)) return undefined;
  const results = scrubDeep(JSON.parse(readFileSync(path, 'utf8')) as Results, secrets);
  const load = loadBeside(dir);
  writeFileSync(join(dir, 'report.html'), scrubText(renderHtml(results, load && scrubDeep(load, secrets)), secrets));
  return join(dir, 'report.html');
}
