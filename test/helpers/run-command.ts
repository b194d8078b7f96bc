import { spawn } from 'node:child_process';

export interface CommandOutcome { code: number | null; stdout: string; stderr: string }

/** Runs a command line to its end in `cwd`, with exactly `env`: its exit code and all it printed. */
export function runCommand(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<CommandOutcome> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // 'close', not 'exit': the process can end before its pipes are read to the end (a loaded machine lost stderr).
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
