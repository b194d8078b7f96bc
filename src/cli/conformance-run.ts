/**
 * What the conformance command does between its command line and its verdict, in one place for the two
 * callers that need it: the command itself (src/cli/conformance-command.ts) and the project's tests and
 * scripts, which run many command lines in one process (scripts/conformance-runs.ts). Reading the command
 * line makes its secrets known before any value is judged; a run that ends without a verdict still leaves
 * a report folder that says so.
 */
import type { Results } from '../engine/results.js';
import type { Secrets } from '../kit/scrub.js';
import { conformanceSecrets, scrubLine } from '../reports/index.js';
import { parseConformanceArgs, type ConformanceCommand } from './conformance-options.js';

/**
 * The command line read into options; `setSecrets` learns the raw secrets as soon as the command line is
 * split (a usage error may quote one), then the run's own once the options are read.
 */
export function readConformanceCommand(args: string[] | undefined, setSecrets: (secrets: Secrets) => void): ConformanceCommand & { secrets: Secrets } {
  const command = parseConformanceArgs(args, setSecrets);
  const secrets = conformanceSecrets(command.options);
  setSecrets(secrets);
  return { ...command, secrets };
}

/** Runs the options; a run that throws (exit 2) records its no-verdict reports first, then throws on. */
export async function runRecordingNoVerdict(options: ConformanceCommand['options'], secrets: Secrets): Promise<Results> {
  // Loaded once the command line is read: the harness takes a few tenths of a second to load, bad usage need not wait.
  const { runConformance } = await import('../engine/run.js');
  const startedAt = new Date();
  try {
    // The checks (suites/index.ts): the run plans from them and reads off them which rows the generic profile judges.
    return await runConformance(options, import('../../suites/index.js').then((m) => m.CHECKS));
  } catch (err) {
    // Exit 2 without a verdict still leaves a folder that says what this run did, never an earlier run's files.
    // A folder that cannot be written takes nothing: the caller's one line says why (the Action reads no old file).
    const { recordNoVerdict } = await import('../reports/no-verdict.js');
    recordNoVerdict(options, scrubLine(err instanceof Error ? err.message : String(err), secrets), startedAt, secrets);
    throw err;
  }
}
