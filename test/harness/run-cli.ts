import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results } from '../../src/results.js';

/** Runs the conformance command in a child process; returns its exit code, output and results.json. */
export async function runCli(args: string[], timeoutMs = 120_000): Promise<{ code: number | null; stdout: string; stderr: string; results?: Results; reportDir: string }> {
  const reportDir = mkdtempSync(join(tmpdir(), 'conformance-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/conformance.ts', '--report-dir', reportDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  let results: Results | undefined;
  try {
    results = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as Results;
  } catch {
    results = undefined;
  }
  return { code, stdout, stderr, results, reportDir };
}
