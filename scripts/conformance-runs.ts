/**
 * Conformance command lines run for the project's tests, the mutation score and the benchmark, not for a
 * user: in this process, exactly as the command would run them (the same reading of the command line, the
 * same reports, the same exit code and scrubbed error line; src/cli/conformance-run.ts is shared with the
 * command), or in a child process of the compiled command. Not on the product's path: the executable never
 * loads this file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFailure } from '../src/kit/main.js';
import { program } from '../src/kit/package-root.js';
import { Secrets } from '../src/kit/scrub.js';
import { scrubLine } from '../src/reports/index.js';
import type { Results } from '../src/engine/results.js';
import { CONFORMANCE_USAGE } from '../src/cli/conformance-options.js';
import { readConformanceCommand, runRecordingNoVerdict } from '../src/cli/conformance-run.js';

/** node's flags for the conformance command, as package.json's "conformance" script gives them. */
export const CONFORMANCE_NODE_ARGS = ['--max-semi-space-size=32'];

export interface ChildRun { code: number | null; stdout: string; stderr: string; results?: Results; reportDir: string; durationMs: number }

const freshReportDir = () => mkdtempSync(join(tmpdir(), 'conformance-'));

/** The results.json a run wrote to its report directory; undefined when it wrote none. */
export function readResults(reportDir: string): Results | undefined {
  try {
    return JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as Results;
  } catch {
    return undefined;
  }
}

/**
 * Runs a conformance command line in this process (each run has its own state, src/engine/run-state.ts, so
 * runs side by side share nothing); "stderr" holds the one scrubbed error line of an exit 2.
 */
export async function runCommandLine(args: string[], reportDir = freshReportDir()): Promise<ChildRun> {
  const started = performance.now();
  let secrets = new Secrets();
  let code: number;
  let stderr = '';
  try {
    const { options } = readConformanceCommand(['--report-dir', reportDir, ...args], (known) => (secrets = known));
    code = (await runRecordingNoVerdict({ ...options, progress: undefined }, secrets)).exitCode;
  } catch (err) {
    code = 2;
    stderr = describeFailure(err, { usage: CONFORMANCE_USAGE, scrub: (text) => scrubLine(text, secrets) }, {}).text.trim();
  }
  return { code, stdout: '', stderr, results: readResults(reportDir), reportDir, durationMs: Math.round(performance.now() - started) };
}

/** Runs the compiled conformance command in a child process; returns exit code, output and results.json. */
export async function runConformanceChild(args: string[], timeoutMs = 120_000, reportDir = freshReportDir(), env: Record<string, string> = {}): Promise<ChildRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [...CONFORMANCE_NODE_ARGS, program('src/cli/conformance.ts'), '--report-dir', reportDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  // 'close', not 'exit': the process can end before its pipes are read to the end.
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr, results: readResults(reportDir), reportDir, durationMs: Math.round(performance.now() - started) };
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
