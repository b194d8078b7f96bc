/**
 * The conformance command: reads the command line, runs one conformance run (src/engine/run.ts), prints the verdict
 * and the report paths. src/cli/conformance.ts loads it once the embedded server's thread has started.
 */
import { join, resolve } from 'node:path';
import { REPORT_FILES, scrubLine } from '../reports/index.js';
import { githubAnnotations } from '../reports/github.js';
import { describeConsumption } from '../reports/consumption.js';
import { describeSearches } from '../reports/property-text.js';
import { consoleFindings, totalsLine } from '../reports/console-text.js';
import { main } from '../kit/main.js';
import { Secrets } from '../kit/scrub.js';
import { CONFORMANCE_USAGE } from './conformance-options.js';
import { readConformanceCommand, runRecordingNoVerdict } from './conformance-run.js';

/** The run's secrets as far as they are known: the raw options first, the run's options once read. */
let secrets = new Secrets();

// An error leaving a run is scrubbed of the keys it learnt on its way (src/engine/run.ts); the rest here.
await main({ usage: CONFORMANCE_USAGE, scrub: (text) => scrubLine(text, secrets) }, async () => {
  // Printed lines pass the same scrubber as the reports (a --base-url may carry credentials).
  const { options, reporter, quiet, startLine, list } = readConformanceCommand(undefined, (known) => (secrets = known));
  if (list) {
    console.log(scrubLine((await import('./list-requirements.js')).listRequirements(options, list, (await import('../../suites/index.js')).CHECKS), secrets));
    return 0;
  }
  if (!quiet) console.error(scrubLine(startLine, secrets));
  // A TargetError (unreachable, an empty selection) or a harness error thrown from here is main()'s: exit 2, one line.
  const results = await runRecordingNoVerdict(options, secrets);
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
