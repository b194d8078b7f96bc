import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFailure } from '../kit/main.js';
import { Secrets } from '../kit/scrub.js';
import { conformanceSecrets, scrubLine } from '../reports/index.js';
import { runConformance } from '../run.js';
import { recordNoVerdict } from '../reports/no-verdict.js';
import { CONFORMANCE_USAGE, parseConformanceArgs } from './conformance-options.js';
import { readResults, runConformanceChild, type ChildRun } from './spawn-conformance.js';

/**
 * Runs a conformance command line in this process, exactly as `npm run conformance -- <args>` would (same
 * parsing, same reports, same exit code; the one scrubbed error line on "stderr" for exit 2), without a
 * process of its own: each run has its own scope (src/kit/run-scope.ts), so runs side by side share nothing.
 * For the project's tests and the mutation score, which run hundreds of narrow runs.
 */
export async function runCommandLine(args: string[], reportDir = mkdtempSync(join(tmpdir(), 'conformance-'))): Promise<ChildRun> {
  const started = performance.now();
  let secrets = new Secrets();
  let code: number;
  let stderr = '';
  try {
    const { options } = parseConformanceArgs(['--report-dir', reportDir, ...args], (raw) => (secrets = raw));
    secrets = conformanceSecrets(options);
    const startedAt = new Date();
    try {
      code = (await runConformance({ ...options, progress: undefined })).exitCode;
    } catch (err) {
      // As the command does (src/cli/conformance-command.ts): the folder says this run had no verdict.
      recordNoVerdict(options, scrubLine(err instanceof Error ? err.message : String(err), secrets), startedAt, secrets);
      throw err;
    }
  } catch (err) {
    code = 2;
    stderr = describeFailure(err, { usage: CONFORMANCE_USAGE, scrub: (text) => scrubLine(text, secrets) }, {}).text.trim();
  }
  return { code, stdout: '', stderr, results: readResults(reportDir), reportDir, durationMs: Math.round(performance.now() - started) };
}

/**
 * Command lines run `size` at a time in this process; a run past its deadline fails the caller (it cannot be
 * killed). `ownProcess`: each in a process of its own instead (the compiled command), for targets that live in
 * the caller's own process (a test's variant server): sharing its event loop with the runs would slow the
 * service under test, and a slow reply is a verdict.
 */
export class ConformanceRuns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number, private readonly options: { ownProcess?: boolean } = {}) {}

  async run(args: string[], timeoutMs = 120_000, reportDir?: string): Promise<ChildRun> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    let timer: NodeJS.Timeout | undefined;
    try {
      // The child is killed at its own deadline.
      if (this.options.ownProcess) return await runConformanceChild(args, timeoutMs, reportDir);
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the run ${args.join(' ')} did not end within ${timeoutMs} ms`)), timeoutMs);
      });
      return await Promise.race([runCommandLine(args, reportDir), late]);
    } finally {
      clearTimeout(timer);
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
