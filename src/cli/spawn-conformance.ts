import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results } from '../results.js';
import { program } from '../kit/package-root.js';

/** node's flags for the conformance command, as package.json's "conformance" script gives them. */
export const CONFORMANCE_NODE_ARGS = ['--max-semi-space-size=32'];

export interface ChildRun { code: number | null; stdout: string; stderr: string; results?: Results; reportDir: string; durationMs: number }

/** Runs the conformance command in a child process (a fresh report dir unless given); returns exit code, output and results.json. */
export async function runConformanceChild(args: string[], timeoutMs = 120_000, reportDir = mkdtempSync(join(tmpdir(), 'conformance-')), env: Record<string, string> = {}): Promise<ChildRun> {
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

/** The results.json a run wrote to its report directory; undefined when it wrote none (exit 2). */
export function readResults(reportDir: string): Results | undefined {
  try {
    return JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as Results;
  } catch {
    return undefined;
  }
}
