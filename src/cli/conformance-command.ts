/**
 * The conformance command: reads the command line, runs one conformance run (src/run.ts), prints the verdict
 * and the report paths. src/cli/conformance.ts loads it once the embedded server's thread has started.
 */
import { join, resolve } from 'node:path';
import { conformanceSecrets, REPORT_FILES, scrubLine } from '../reports/index.js';
import { githubAnnotations } from '../reports/github.js';
import { describeConsumption } from '../reports/consumption.js';
import { describeSearches } from '../reports/property-text.js';
import { consoleFindings, totalsLine } from '../reports/console-text.js';
import { main } from '../kit/main.js';
import { Secrets } from '../kit/scrub.js';
import { CONFORMANCE_USAGE, parseConformanceArgs } from './conformance-options.js';

/** The run's secrets as far as they are known: the raw options first, the run's options once read. */
let secrets = new Secrets();

// An error leaving a run is scrubbed of the keys it learnt on its way (src/run.ts); the rest here.
await main({ usage: CONFORMANCE_USAGE, scrub: (text) => scrubLine(text, secrets) }, async () => {
  const { options, reporter, quiet, startLine, list } = parseConformanceArgs(undefined, (raw) => (secrets = raw));
  // Printed lines pass the same scrubber as the reports (a --base-url may carry credentials).
  secrets = conformanceSecrets(options);
  if (list) {
    console.log(scrubLine((await import('./list-requirements.js')).listRequirements(options, list), secrets));
    return 0;
  }
  if (!quiet) console.error(scrubLine(startLine, secrets));
  // A TargetError (unreachable, an empty selection) or a harness error thrown from here is main()'s: exit 2, one line.
  // Loaded once the command line is read: the harness takes a few tenths of a second to load, bad usage need not wait.
  const { runConformance } = await import('../run.js');
  const startedAt = new Date();
  let results;
  try {
    results = await runConformance(options);
  } catch (err) {
    // Exit 2 without a verdict still leaves a folder that says what this run did, never an earlier run's files.
    // A folder that cannot be written takes nothing: main()'s one line says why (the Action reads no old file).
    const { recordNoVerdict } = await import('../reports/no-verdict.js');
    recordNoVerdict(options, scrubLine(err instanceof Error ? err.message : String(err), secrets), startedAt, secrets);
    throw err;
  }
  if (quiet) {
    console.log(scrubLine(results.verdict, secrets));
    if (reporter === 'github') for (const line of githubAnnotations(results)) console.log(scrubLine(line, secrets));
    return results.exitCode;
  }
  console.log(scrubLine([results.verdict, ...consoleFindings(results), totalsLine(results)].join('\n'), secrets));
  if (results.consumption) console.log(`consumed: ${describeConsumption(results.consumption)}`);
  if (results.harness?.busy) console.log(`harness: ${results.harness.busy}`);
  const searches = describeSearches(results);
  if (searches) console.log(`properties: ${searches}`);
  console.log(`reports:\n${REPORT_FILES.map((f) => `  ${join(resolve(options.reportDir), f)}`).join('\n')}`);
  if (reporter === 'github') for (const line of githubAnnotations(results)) console.log(scrubLine(line, secrets));
  return results.exitCode;
});
