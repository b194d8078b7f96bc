/** The door of the capacity reports, the only code that writes them: capacity.json, .md, .html and -junit.xml, from one scrubbed copy. */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scrubDeep, scrubText, type Secrets } from '../../../src/kit/scrub.js';
import { makeDir } from '../../../src/kit/make-dir.js';
import type { CapacityReport } from '../capacity-result.js';
import { CAPACITY_HTML, renderCapacityHtml } from './capacity-html.js';
import { CAPACITY_JSON, renderCapacityJson } from './capacity-json.js';
import { CAPACITY_JUNIT, renderCapacityJunit } from './capacity-junit.js';
import { CAPACITY_MD, renderCapacityMd } from './capacity-md.js';

export { capacityWord } from './capacity-word.js';

/** Writes the four files into `dir`; returns their absolute paths and the scrubbed report (print from it). */
export function writeCapacityReports(dir: string, report: CapacityReport, secrets: Secrets): { files: string[]; report: CapacityReport } {
  const clean = scrubDeep(report, secrets);
  makeDir(dir);
  const texts: [string, string][] = [[CAPACITY_JSON, renderCapacityJson(clean)], [CAPACITY_MD, renderCapacityMd(clean)], [CAPACITY_HTML, renderCapacityHtml(clean)], [CAPACITY_JUNIT, renderCapacityJunit(clean)]];
  const files = texts.map(([file, text]) => {
    const path = resolve(join(dir, file));
    writeFileSync(path, scrubText(text, secrets));
    return path;
  });
  return { files, report: clean };
}
