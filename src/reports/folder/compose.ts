/**
 * The report folder's page: report.html, composed from whichever runs the folder holds (src/reports/folder/
 * runs.ts). The conformance run is the page (src/reports/report-html.ts: matrix, failures, filters); a load
 * run's section (load/report/load-html.ts) and a probe run's (load/probe/probe-report.ts) follow it, each
 * rendered by its own writer. Without a conformance run there is no report.html: load.html and probe.html
 * are those runs' pages. Every door's caller ends here, so the page shows the folder whatever ran last.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scrubText, type Secrets } from '../../kit/scrub.js';
import { renderHtml, type FolderSection } from '../report-html.js';
import type { Results } from '../../engine/results.js';
import { renderLoadSection } from '../../../load/report/load-html.js';
import { loadWord } from '../../../load/report/load-results.js';
import { renderProbeSection, verdictWord } from '../../../load/probe/probe-report.js';
import { readFolderRuns } from './runs.js';
import { renderCapacitySection } from '../../../load/capacity/report/capacity-html.js';
import { capacityWord } from '../../../load/capacity/report/capacity-word.js';

export const REPORT_HTML = 'report.html';

/**
 * Whether another run of the folder judged the conformance run's target: the same kind, and for a deployment
 * the same base URL (a server the harness starts has a new port each run, and is the same reference).
 */
function sameTarget(conformance: Results['target'], other: { kind: string; baseUrl: string }): boolean {
  if (conformance.kind !== other.kind) return false;
  if (conformance.kind === 'embedded' || conformance.kind === 'container') return true;
  return conformance.baseUrl.replace(/\/+$/, '') === other.baseUrl.replace(/\/+$/, '');
}

/** report.html of `dir`, scrubbed of `secrets`; undefined when `dir` holds no conformance run. */
export function composeReportHtml(dir: string, secrets: Secrets): string | undefined {
  const runs = readFolderRuns(dir, secrets);
  if (!runs.conformance) return undefined;
  const target = runs.conformance.target;
  const sections: FolderSection[] = [];
  const notes: string[] = [];
  // A folder reused by a run against another target keeps the other runs' files: never shown as this target's.
  const add = (file: string, run: { target: { kind: string; baseUrl: string; description: string }; startedAt: string }, section: Omit<FolderSection, 'startedAt'>) => {
    if (sameTarget(target, run.target)) sections.push({ ...section, startedAt: run.startedAt });
    else notes.push(`${file} in this folder is a run against another target (${run.target.description}, started ${run.startedAt}): not shown here`);
  };
  if (runs.load) add('load.json', runs.load, { id: 'load', title: 'Load', word: loadWord(runs.load), html: renderLoadSection(runs.load) });
  if (runs.probe) add('probe.json', runs.probe, { id: 'probe', title: 'Rate-limit probe', word: verdictWord(runs.probe), html: renderProbeSection(runs.probe) });
  if (runs.capacity) add('capacity.json', runs.capacity, { id: 'capacity', title: 'Capacity', word: capacityWord(runs.capacity), html: renderCapacitySection(runs.capacity) });
  return scrubText(renderHtml(runs.conformance, sections, notes), secrets);
}

/** Writes report.html of `dir` from the runs it holds; returns its absolute path, or undefined when there is none to write. */
export function writeReportHtml(dir: string, secrets: Secrets): string | undefined {
  const html = composeReportHtml(dir, secrets);
  if (html === undefined) return undefined;
  const path = resolve(join(dir, REPORT_HTML));
  writeFileSync(path, html);
  return path;
}
