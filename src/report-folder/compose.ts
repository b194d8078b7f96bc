/**
 * The report folder's page: report.html, composed from whichever runs the folder holds (src/report-folder/
 * runs.ts). The conformance run is the page (src/reports/report-html.ts: matrix, failures, filters); a load
 * run's section (load/report/load-html.ts) and a probe run's (load/probe/probe-report.ts) follow it, each
 * rendered by its own writer. Without a conformance run there is no report.html: load.html and probe.html
 * are those runs' pages. Every door's caller ends here, so the page shows the folder whatever ran last.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scrubText, type Secrets } from '../kit/scrub.js';
import { renderHtml } from '../reports/report-html.js';
import { renderLoadSection } from '../../load/report/load-html.js';
import { renderProbeSection } from '../../load/probe/probe-report.js';
import { readFolderRuns } from './runs.js';

export const REPORT_HTML = 'report.html';

/** report.html of `dir`, scrubbed of `secrets`; undefined when `dir` holds no conformance run. */
export function composeReportHtml(dir: string, secrets: Secrets): string | undefined {
  const runs = readFolderRuns(dir, secrets);
  if (!runs.conformance) return undefined;
  const sections = [...(runs.load ? [renderLoadSection(runs.load)] : []), ...(runs.probe ? [renderProbeSection(runs.probe)] : [])];
  return scrubText(renderHtml(runs.conformance, sections), secrets);
}

/** Writes report.html of `dir` from the runs it holds; returns its absolute path, or undefined when there is none to write. */
export function writeReportHtml(dir: string, secrets: Secrets): string | undefined {
  const html = composeReportHtml(dir, secrets);
  if (html === undefined) return undefined;
  const path = resolve(join(dir, REPORT_HTML));
  writeFileSync(path, html);
  return path;
}
