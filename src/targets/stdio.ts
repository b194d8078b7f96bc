import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { TargetInfo } from './target-info.js';
import { isObject } from '../mcp/tool-result.js';
import { redact } from '../wire/redact.js';
import { TargetError, type PreparedTarget } from './target.js';
import { reaped } from '../kit/child-reaper.js';
import { compiled, PACKAGE_ROOT, program } from '../kit/package-root.js';

const ROOT = PACKAGE_ROOT;

/** What the stdio target adds to a run's options (`--stdio-command`). */
export interface StdioRunOptions {
  stdioCommand?: string;
}

/** The repository's own proxy, compiled (dist/); `node` is this very node binary. */
const DEFAULT_STDIO_ENTRY = 'service/reference-server/stdio-proxy/main.ts';
export const DEFAULT_STDIO_COMMAND = `node ${compiled(DEFAULT_STDIO_ENTRY)}`;

/** The repository's own proxy as the harness runs it: its compiled program, on this node. */
export async function ownProxyCommand(): Promise<[string, string]> {
  return [process.execPath, program(DEFAULT_STDIO_ENTRY)];
}

/**
 * The stdio target: an HTTP target (the embedded reference server, or `--base-url`) plus a command speaking
 * MCP over stdio that is pointed at it through its environment (CANVAS_MCP_URL, CANVAS_API_KEY; the key
 * lives only there, never in the arguments). The HTTP suites keep running against the HTTP side, so one
 * run compares the proxy with the endpoint it forwards to; the stdio suite talks to the command.
 */
export async function prepareStdio(http: PreparedTarget, commandLine = DEFAULT_STDIO_COMMAND): Promise<PreparedTarget> {
  let command: string | undefined;
  let args: string[];
  try {
    [command, ...args] = splitCommandLine(commandLine);
    if (!command) throw new TargetError('--stdio-command is empty');
    if (command === 'node') command = process.execPath;
    if (!findExecutable(command)) throw new TargetError(`--stdio-command: "${command}" is not an executable file or a command on PATH`);
    // The repository's own proxy, however its command line is spaced, runs on this very node.
    if (command === process.execPath && args.join(' ') === splitCommandLine(DEFAULT_STDIO_COMMAND).slice(1).join(' ')) {
      [command, ...args] = await ownProxyCommand();
    }
  } catch (err) {
    await http.close();
    throw err;
  }
  const env: Record<string, string> = { CANVAS_MCP_URL: http.info.mcpUrl };
  if (http.info.apiKey) env.CANVAS_API_KEY = http.info.apiKey;
  const info: TargetInfo = { ...http.info, kind: 'stdio', stdio: { command, args, env } };
  return { info, close: () => http.close() };
}

/** Splits a command line like a POSIX shell would for words: whitespace, '…', "…" and backslash escapes; no expansion. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word += line[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new TargetError(`--stdio-command has an unterminated ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findExecutable(command: string): boolean {
  if (command.includes('/')) return isExecutable(isAbsolute(command) ? command : resolve(ROOT, command));
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && isExecutable(join(dir, command)));
}

/** One stdout line as it arrived; `at` is milliseconds since the process started. */
export interface StdoutLine {
  at: number;
  text: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds from closing stdin to the exit; undefined when it had to be killed. */
  afterEofMs?: number;
  /** It did not exit within the grace period and was terminated by the harness. */
  killed: boolean;
  /** Spawning failed (ENOENT, EACCES...). */
  spawnError?: string;
}

/**
 * A stdio MCP server as its client sees it: lines written to stdin, stdout split on "\n" (the stdio framing)
 * with arrival times, stderr kept whole. Every wait is bounded; `finish()` closes stdin and waits for the exit,
 * then terminates the process if it lingers. Secrets are redacted from every transcript.
 */
export class StdioProcess {
  readonly sent: { at: number; text: string }[] = [];
  readonly lines: StdoutLine[] = [];
  /** Bytes after the last "\n" on stdout (a message without its newline). */
  partial = '';
  stderr = '';
  exit?: ExitInfo;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly started = performance.now();
  private readonly waiters = new Set<() => void>();
  private readonly exited: Promise<void>;
  private eofAt?: number;

  constructor(spec: NonNullable<TargetInfo['stdio']>, private readonly secrets: readonly string[]) {
    // The harness's own key variables are not the child's business.
    const { MCP_API_KEY: _a, MCP_REVOKED_KEY: _b, ...inherited } = process.env;
    // Ended with the command on a signal: a server that ignores its stdin's end would outlive the run.
    this.child = reaped(spawn(spec.command, spec.args, { cwd: ROOT, env: { ...inherited, ...spec.env }, stdio: ['pipe', 'pipe', 'pipe'] }));
    const decoder = new TextDecoder();
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.partial += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = this.partial.indexOf('\n')) >= 0) {
        this.lines.push({ at: this.now(), text: this.partial.slice(0, nl) });
        this.partial = this.partial.slice(nl + 1);
      }
      this.wake();
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      if (this.stderr.length < 1_000_000) this.stderr += chunk.toString('utf8');
    });
    // A child that is gone makes stdin writes fail (EPIPE): that is what the exit record reports.
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((done) => {
      this.child.on('error', (err) => {
        this.exit ??= { code: null, signal: null, killed: false, spawnError: err.message };
        this.wake();
        done();
      });
      this.child.on('exit', (code, signal) => {
        this.exit ??= { code, signal, killed: false, ...(this.eofAt !== undefined && { afterEofMs: Math.round(this.now() - this.eofAt) }) };
        this.wake();
        done();
      });
    });
  }

  private now(): number {
    return performance.now() - this.started;
  }

  private wake(): void {
    for (const w of this.waiters) w();
  }

  /** Writes one line (a newline is appended). */
  write(text: string): void {
    this.sent.push({ at: this.now(), text });
    if (!this.exit && this.child.stdin.writable) this.child.stdin.write(`${text}\n`);
  }

  send(message: unknown): void {
    this.write(JSON.stringify(message));
  }

  /** Waits until `ready()` holds, the process exits, or the deadline passes; returns whether it holds. */
  async until(ready: () => boolean, timeoutMs: number): Promise<boolean> {
    if (ready()) return true;
    return new Promise((resolveWait) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolveWait(ready());
      };
      const check = () => {
        if (ready() || this.exit) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** stdout cut into frames: messages on one line, values spread over several lines, blank lines, other text. */
  frames(): StdoutFrame[] {
    return stdoutFrames(this.lines.map((l) => l.text));
  }

  /**
   * The JSON values on stdout with their arrival times, a value spread over several lines counted once (that
   * framing fault is one requirement's business; the others still read what was said).
   */
  messages(): { at: number; value: unknown }[] {
    return this.frames().filter((f) => f.kind === 'message' || f.kind === 'multiline').map((f) => ({ at: this.lines[f.first + f.lines - 1]!.at, value: f.value }));
  }

  values(): unknown[] {
    return this.messages().map((m) => m.value);
  }

  /** The stdout messages that are responses to `id` (same value and type). */
  responsesTo(id: string | number): any[] {
    return this.values().filter((v: any) => isObject(v) && 'id' in v && ('result' in v || 'error' in v) && v.id === id);
  }

  /** Waits for the first response to `id`. */
  async response(id: string | number, timeoutMs: number): Promise<any> {
    await this.until(() => this.responsesTo(id).length > 0, timeoutMs);
    return this.responsesTo(id)[0];
  }

  /** Closes stdin and waits up to `graceMs` for the exit; then SIGTERM, and SIGKILL two seconds later. */
  async finish(graceMs = 5_000): Promise<ExitInfo> {
    const exited = () => this.exit;
    if (!exited()) {
      this.eofAt = this.now();
      this.child.stdin.end();
      await Promise.race([this.exited, sleep(graceMs)]);
    }
    if (!exited()) {
      this.child.kill('SIGTERM');
      await Promise.race([this.exited, sleep(2_000)]);
      if (!exited()) this.child.kill('SIGKILL');
      await Promise.race([this.exited, sleep(2_000)]);
      const { afterEofMs: _, ...exit } = exited() ?? { code: null, signal: null };
      this.exit = { ...exit, killed: true };
    }
    return this.exit!;
  }

  /** Both directions in order, keys redacted, for evidence: `> ` stdin, `< ` stdout, then stderr. */
  transcript(limit = 6_000): string {
    const events = [
      ...this.sent.map((s) => ({ at: s.at, line: `> ${s.text}` })),
      ...this.lines.map((l) => ({ at: l.at, line: `< ${l.text}` })),
    ].sort((a, b) => a.at - b.at);
    let text = events.map((e) => `${e.at.toFixed(0).padStart(5)} ms ${e.line}`).join('\n');
    if (this.partial) text += `\n< ${this.partial} [no newline]`;
    if (this.stderr) text += `\n[stderr]\n${this.stderr.trimEnd()}`;
    if (this.exit) text += `\n[exit] ${JSON.stringify(this.exit)}`;
    text = redact(text, this.secrets);
    return text.length <= limit ? text : `${text.slice(0, limit)}… [${text.length - limit} more characters]`;
  }
}

export interface StdoutFrame {
  /** `message`: one JSON value on one line; `multiline`: one spread over several lines; `garbage`: no JSON value. */
  kind: 'message' | 'multiline' | 'blank' | 'garbage';
  /** Index of its first line, and how many lines it takes. */
  first: number;
  lines: number;
  value?: unknown;
  text: string;
}

/** Cuts stdout lines into frames; a line opening `{` or `[` that is not JSON alone is joined up to its closing bracket. */
export function stdoutFrames(lines: string[]): StdoutFrame[] {
  const out: StdoutFrame[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    if (line.trim() === '') {
      out.push({ kind: 'blank', first: i, lines: 1, text: line });
      i += 1;
      continue;
    }
    const value = parseJson(line);
    if (value !== undefined) {
      out.push({ kind: 'message', first: i, lines: 1, value, text: line });
      i += 1;
      continue;
    }
    const end = /^\s*[[{]/.test(line) ? closingLine(lines, i) : -1;
    const joined = end > i ? lines.slice(i, end + 1).join('\n') : undefined;
    const spread = joined === undefined ? undefined : parseJson(joined);
    if (spread !== undefined) {
      out.push({ kind: 'multiline', first: i, lines: end - i + 1, value: spread, text: joined! });
      i = end + 1;
    } else {
      out.push({ kind: 'garbage', first: i, lines: 1, text: line });
      i += 1;
    }
  }
  return out;
}

/** The line where the bracket opened on line `start` closes (string-aware), or -1. */
function closingLine(lines: string[], start: number): number {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < lines.length; i += 1) {
    for (const ch of lines[i]!) {
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') inString = false;
      } else if (ch === '"') {
        inString = true;
      } else if (ch === '{' || ch === '[') {
        depth += 1;
      } else if (ch === '}' || ch === ']') {
        depth -= 1;
        if (depth === 0) return i;
      }
    }
    // JSON strings hold no raw newline: a string still open at the end of a line is no JSON value.
    if (inString) return -1;
  }
  return -1;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
