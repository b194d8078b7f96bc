import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadReport } from '../../load/report/load-results.js';
import { program } from '../../src/kit/package-root.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface LoadRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `npm run load -- <args>` in a child process, as a user runs it (no shell, so the key never shows in ps). */
export function runLoad(args: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<LoadRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [program('src/cli/load.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, MCP_API_KEY: '', ...options.env },
      timeout: options.timeoutMs ?? 90_000,
      maxBuffer: 16 * 1024 * 1024,
    }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export const REPORT_FILES = ['load.json', 'load.md', 'load.html', 'load-junit.xml'] as const;

export function readReport(dir: string): LoadReport {
  return JSON.parse(readFileSync(join(dir, 'load.json'), 'utf8')) as LoadReport;
}

export function reportText(dir: string, file: (typeof REPORT_FILES)[number]): string {
  return readFileSync(join(dir, file), 'utf8');
}

export function hasReports(dir: string): boolean {
  return REPORT_FILES.some((f) => existsSync(join(dir, f)));
}
