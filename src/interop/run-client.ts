import { spawn } from 'node:child_process';
import { redact } from '../wire/redact.js';
import type { InteropClient } from './clients.js';
import { reaped } from '../kit/child-reaper.js';
import { epochNow } from './machine.js';

/** One line a client program printed (the contract: `src/interop/clients/README.md`). */
export interface ClientLine {
  step: string;
  at: number;
  [field: string]: unknown;
}

export interface ClientRun {
  lines: ClientLine[];
  /** stdout lines that are not JSON objects with a `step` (the contract allows none). */
  unparsed: string[];
  /** The end of stderr, secrets redacted. */
  stderr: string;
  exitCode: number | null;
  /** Set when the harness killed the program: it printed nothing for longer than a step may take. */
  hung?: string;
  durationMs: number;
  /** When the program was spawned, epoch ms (src/interop/machine.ts epochNow): its lines' `at` count from about then. */
  startedAt?: number;
}

/**
 * Grace for a runtime to start (node and its SDK's modules, Python's imports) before its first line, on a quiet
 * machine: the matrix adds what this machine's measured start-up asks for (src/interop/machine.ts).
 */
export const STARTUP_GRACE_MS = 15_000;
/** Beyond a step's own deadline (the SDK's), before a silent program counts as hung. */
const STEP_GRACE_MS = 5_000;
const STDERR_TAIL = 4_000;

/**
 * Runs one client program with its configuration in the environment (never argv: keys live there) and
 * collects its JSON lines. A watchdog kills a program that prints nothing for `stepMs` + a grace (a hang at
 * whatever step it was in: the last line printed says which); before its first line, for `startupGraceMs` + `stepMs`.
 */
export async function runClient(client: InteropClient, env: Record<string, string>, stepMs: number, secrets: () => readonly string[], startupGraceMs = STARTUP_GRACE_MS): Promise<ClientRun> {
  const { command, args } = await client.launch();
  const started = performance.now();
  const startedAt = epochNow();
  return new Promise((resolve) => {
    const child = reaped(spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
    const lines: ClientLine[] = [];
    const unparsed: string[] = [];
    let stderr = '';
    let pending = '';
    let hung: string | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    const arm = (ms: number) => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        const last = lines.at(-1);
        hung = `printed nothing for ${Math.round(ms / 1000)} s ${last ? `after its "${last.step}" line` : 'after it started'}: killed`;
        child.kill('SIGKILL');
      }, ms);
    };
    arm(startupGraceMs + stepMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const text = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (!text) continue;
        try {
          // The SDK's error texts quote what the service sent, which may echo the key: redacted before anything reads them.
          const parsed = JSON.parse(redact(text, secrets())) as ClientLine;
          if (parsed && typeof parsed === 'object' && typeof parsed.step === 'string') lines.push(parsed);
          else unparsed.push(redact(text, secrets()).slice(0, 500));
        } catch {
          unparsed.push(redact(text, secrets()).slice(0, 500));
        }
        arm(stepMs + STEP_GRACE_MS);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL * 2);
    });
    const done = (exitCode: number | null, error?: Error) => {
      clearTimeout(watchdog);
      if (error) stderr += `\n${error.message}`;
      resolve({
        lines, unparsed, exitCode, ...(hung && { hung }), durationMs: Math.round(performance.now() - started), startedAt,
        stderr: redact(stderr, secrets()).slice(-STDERR_TAIL),
      });
    };
    child.on('error', (err) => done(null, err));
    child.on('close', (code) => done(code));
  });
}
