import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Results } from '../engine/results.js';
import { makeDir } from '../kit/make-dir.js';
import { scrubDeep, scrubText, Secrets } from '../kit/scrub.js';
import type { TargetInfo } from '../targets/target-info.js';
import { TargetError } from '../targets/target.js';
import { renderJunit } from './junit.js';
import { renderSummary } from './summary-md.js';

/*
 * The door of the conformance reports: the only code that writes them. A run's results are scrubbed of the
 * run's secrets once (src/kit/scrub.ts), then every file is rendered from the scrubbed copy, which
 * is also what the CLI prints from. The renderers are pure (results in, text out) and write nothing.
 * report.html is the report folder's page, with any load or probe run written beside: src/reports/folder
 * composes it from results.json (rendered by ./report-html.ts), after this door has written that.
 */

/** Every file in a report directory after a run (report.html from the folder's composer), in the order the CLI lists them. */
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

/**
 * The run's secrets, from its options, (once prepared) the target it ran against, and every key the run
 * learnt so far (`learnt`, its key ledger's redaction list: keys bootstrapped inside checks, the interop
 * matrix's, the admin channel's, src/wire/key-sightings.ts).
 */
export function conformanceSecrets(options: ConformanceSecretInputs, info?: TargetInfo, learnt: readonly string[] = []): Secrets {
  const stdioEnv = Object.entries(info?.stdio?.env ?? {}).filter(([k]) => /key|token|secret|password/i.test(k)).map(([, v]) => v);
  return Secrets.from({
    values: [
      options.apiKey, options.otherKey, options.revokedKey,
      info?.apiKey, info?.otherKey, info?.revokedKey, info?.admin?.token, info?.sessionId, ...stdioEnv,
      ...learnt,
    ],
    headers: { ...info?.headers, ...options.headers },
    urls: [options.baseUrl, options.mcpUrl, options.mailboxUrl, info?.baseUrl, info?.mcpUrl, info?.mailboxUrl, info?.admin?.url],
  });
}

/** A line for the console, scrubbed like the reports. */
export function scrubLine(line: string, secrets: Secrets): string {
  return scrubText(line, secrets);
}

/**
 * Creates the report folder, or refuses it, before a run sends anything: a folder found unwritable after the
 * run would lose what its requests cost (bootstraps, claim mails, the wait). Removes an earlier run's reports.
 */
export function claimReportDir(dir: string): void {
  try {
    makeDir(dir);
    const probe = join(dir, `.write-check-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
    // An earlier run's reports go now: whatever ends this run (exit 2, a signal), none passes for its result.
    for (const file of REPORT_FILES) rmSync(join(dir, file), { force: true });
  } catch (err) {
    throw new TargetError(`cannot write the reports to ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give --report-dir a folder you can write`);
  }
}

/**
 * Scrubs `results` with `secrets`, writes results.json and (unless `resultsOnly`) junit.xml and summary.md
 * to `dir`, and returns the scrubbed results: print from these, never from the originals. The caller then
 * has the report folder's composer write report.html (src/engine/run.ts `composeReportHtml`).
 */
export function writeReports(results: Results, dir: string, secrets: Secrets, resultsOnly = false): Results {
  const clean = scrubDeep(results, secrets);
  makeDir(dir);
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(clean, null, 2)}\n`);
  if (resultsOnly) return clean;
  const texts: Record<string, string> = {
    'junit.xml': renderJunit(clean),
    'summary.md': renderSummary(clean),
  };
  for (const [file, text] of Object.entries(texts)) writeFileSync(join(dir, file), scrubText(text, secrets));
  return clean;
}
