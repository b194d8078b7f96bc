import { runConformanceChild, type ChildRun } from '../../src/cli/spawn-conformance.js';

/** Runs the conformance command in a child process; returns its exit code, output and results.json. */
export function runCli(args: string[], timeoutMs = 240_000): Promise<ChildRun> {
  return runConformanceChild(args, timeoutMs);
}
