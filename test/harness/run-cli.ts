import { runConformanceChild, type ChildRun } from '../../scripts/conformance-runs.js';

/** Runs the conformance command in a child process; returns its exit code, output and results.json. */
export function runCli(args: string[], timeoutMs = 240_000): Promise<ChildRun> {
  return runConformanceChild(args, timeoutMs);
}
