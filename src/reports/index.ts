import type { Results } from '../results.js';
import { writeHtml } from './report-html.js';
import { writeJunit } from './junit.js';
import { writeSummary } from './summary-md.js';

/**
 * The report files a run writes beside results.json (which src/run.ts writes itself), in the order the
 * CLI lists them. Each writer takes the run's results and the report directory.
 */
export const REPORTS: { file: string; write: (results: Results, dir: string) => void }[] = [
  { file: 'junit.xml', write: writeJunit },
  { file: 'summary.md', write: writeSummary },
  { file: 'report.html', write: writeHtml },
];

export const REPORT_WRITERS: ((results: Results, dir: string) => void)[] = REPORTS.map((r) => r.write);

/** Every file in a report directory after a run. */
export const REPORT_FILES: string[] = ['results.json', ...REPORTS.map((r) => r.file)];
