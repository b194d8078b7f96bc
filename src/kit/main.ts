/**
 * The one way a command of the project ends. Its body returns the exit code of its verdict (0 holds, 1
 * fails); a UsageError exits 2 with `error: <message>` and the usage; any other error, thrown or
 * rejected anywhere, exits 2 with one line `error: <message>`, never a stack trace unless HARNESS_DEBUG=1
 * asks for one. Every line passes the command's scrubber first: an error message may quote a key.
 */
import { readFileSync } from 'node:fs';
import { scrubText } from './scrub.js';
import { UsageError } from './options.js';
import { killAllChildren, lastResort, signalOwned } from './child-reaper.js';

export interface MainOptions {
  /** Printed after a usage error's message. */
  usage: string;
  /** The command's scrubber, called at print time (the command learns its secrets as it runs); the secret-free patterns follow it. */
  scrub?: (text: string) => string;
}

/** The environment variable that adds the (scrubbed) stack to an error line. */
export const DEBUG_ENV = 'HARNESS_DEBUG';

/** The "Exit status" lines of a usage text, the same for every command; `also` names a command's own errors. */
export function exitStatus(pass: string, fail: string, also?: string): string {
  return [
    'Exit status',
    `  0  ${pass}`,
    `  1  ${fail}`,
    `  2  anything else, never a verdict: bad usage (the message, then this help), an unreachable target,`,
    `     an error inside the harness${also ? `, ${also}` : ''}`,
    `     (one line "error: ..." on stderr; ${DEBUG_ENV}=1 adds the stack trace)`,
  ].join('\n');
}

/** What main() prints for `err`: the lines (already scrubbed) and the exit code. */
export function describeFailure(err: unknown, options: MainOptions, env: NodeJS.ProcessEnv = process.env): { text: string; code: 2 } {
  // The secret-free patterns (key shapes, Bearer, URL userinfo) apply whatever the command's own scrubber knows.
  const scrub = (text: string) => scrubText(options.scrub ? options.scrub(text) : text);
  const message = err instanceof Error ? err.message : String(err);
  // One line: a multi-line message (a suite's errors, an aggregate) is joined, not cut.
  const line = `error: ${message.split('\n').map((l) => l.trim()).filter(Boolean).join(' | ') || (err instanceof Error ? err.name : 'unknown error')}`;
  if (err instanceof UsageError) return { text: `${scrub(line)}\n\n${options.usage}`, code: 2 };
  const debug = env[DEBUG_ENV] === '1' && err instanceof Error && err.stack ? `\n${err.stack}` : '';
  return { text: scrub(`${line}${debug}`), code: 2 };
}

function die(err: unknown, options: MainOptions): never {
  let failure;
  try {
    failure = describeFailure(err, options);
  } catch {
    // A scrubber that throws must not turn into a stack trace with the secret it was meant to hide.
    failure = { text: 'error: (the error message could not be scrubbed)', code: 2 as const };
  }
  process.stderr.write(`${failure.text}\n`);
  process.exit(failure.code);
}

/**
 * Reads a command line at module level, for a script whose functions share the settings it reads: a
 * UsageError (or any error) exits 2 exactly as in main(). The script's run still goes through main().
 */
export function readCommandLine<T>(options: MainOptions, read: () => T): T {
  try {
    return read();
  } catch (err) {
    return die(err, options);
  }
}

let signalCode: number | undefined;

/**
 * Says that a signal handler is cleaning up and will exit with `code` (130, 143). Until it does, main() exits
 * with nothing else: what the cleanup cuts off (an image build whose engine it stops) fails, and that failure
 * is the signal's doing, not an error of the run (exit 2, "error: read ECONNRESET").
 */
export function endingOnSignal(code: number): void {
  signalCode = code;
}

/**
 * The last word on SIGINT and SIGTERM: where the command has no handler of its own (a server closing, k6
 * stopping, a container target cleaning up), it ends every child the command started and exits as the
 * signal asks (130, 143). node as PID 1 in a container would otherwise ignore SIGTERM until the engine kills it.
 */
const onSignal = lastResort((signal: NodeJS.Signals): void => {
  if (signalOwned(signal, onSignal)) return;
  killAllChildren();
  process.exit(signal === 'SIGINT' ? 130 : 143);
});

/**
 * How often the shell npx started this process through has woken (Linux: its /proc status), or undefined
 * where that cannot be read. Waiting for this process, the shell wakes only for a signal it catches: dash
 * and bash catch SIGINT (to exit with it once their child has), and SIGCHLD comes from this process alone.
 */
function shellWakeups(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const count = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    const total = count('voluntary_ctxt_switches') + count('nonvoluntary_ctxt_switches');
    return Number.isNaN(total) ? undefined : total;
  } catch {
    return undefined;
  }
}

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash', 'ksh']);

/**
 * npx (npm exec) starts the executable through `sh -c` and forwards SIGINT and SIGTERM to that shell only
 * (@npmcli/run-script's signal-manager). SIGTERM ends the shell and orphans this process; SIGINT the shell
 * keeps to itself until its child exits, so the run would go on to a verdict. Under npx, then: orphaned,
 * the command ends as on SIGTERM; the shell woken while it waits for this process, as on SIGINT (each
 * through its handlers, then main()'s last word). Only under npx: a server a shell started in the
 * background is meant to outlive that shell. Without /proc only the orphaning is seen.
 */
function watchNpxParent(): void {
  if (process.env.npm_command !== 'exec') return;
  const parent = process.ppid;
  let comm = '';
  try {
    comm = readFileSync(`/proc/${parent}/comm`, 'utf8').trim();
  } catch {
    // No /proc: the orphaning alone.
  }
  const woken = SHELLS.has(comm) ? shellWakeups(parent) : undefined;
  const watch = setInterval(() => {
    let signal: NodeJS.Signals | undefined;
    if (process.ppid !== parent) signal = 'SIGTERM';
    else if (woken !== undefined && shellWakeups(parent) !== woken) signal = 'SIGINT';
    if (!signal) return;
    clearInterval(watch); // once: a second signal means "at once" to the commands that stop gracefully
    process.emit(signal, signal);
  }, 250).unref();
}

/**
 * Runs a command's body and exits with its verdict. A body that returns undefined keeps the process
 * running (a server); errors thrown later, from a callback or an unhandled rejection, still end it here.
 */
export async function main(options: MainOptions, body: () => Promise<number | void> | number | void): Promise<void> {
  // Only when nothing else listens: a library that handles its own (vitest's runner does) keeps doing so.
  const fail = (err: unknown) => {
    if (signalCode === undefined) die(err, options);
  };
  if (!process.listeners('SIGTERM').includes(onSignal)) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    watchNpxParent();
  }
  for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
    process.on(event, (err: unknown) => {
      if (process.listenerCount(event) === 1) fail(err);
    });
  }
  let code: number | void = undefined;
  try {
    code = await body();
  } catch (err) {
    fail(err);
  }
  if (code === undefined || signalCode !== undefined) return;
  await flushed();
  if (signalCode === undefined) process.exit(code);
}

/**
 * Resolves once what was written to stdout and stderr has been handed on: process.exit() drops what a pipe
 * has not yet taken (`conformance --list --json | jq` got the first 64 KiB of the list).
 */
function flushed(): Promise<unknown> {
  return Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => {
    if (stream.writableLength === 0) resolve();
    else stream.write('', () => resolve());
  })));
}
