/**
 * Interop client `ts-v2`: the TypeScript SDK v2 client package (`@modelcontextprotocol/client`, pinned 2.4.0)
 * following the contract in ./README.md (input: environment only; output: JSON lines on stdout, logs on stderr).
 *
 *   node dist/src/interop/clients/ts-v2.js
 *
 * A separate program on purpose (ts-v1.ts is its twin for `@modelcontextprotocol/sdk`): same steps in the
 * same order, same output helper, nothing shared. The SDK is loaded with a dynamic import so that a missing
 * SDK prints `fatal` instead of crashing before the first line.
 *
 * INTEROP_MODE=http,stdio runs the whole script once per mode, concurrently, in this one process (one start of
 * the runtime instead of two): each mode has its own clients and connections, and every line it prints carries
 * its `mode`.
 *
 * SDK facts this program relies on (read in the installed source, dist/*.mjs):
 * - INTEROP_REVISION=default: no `versionNegotiation` option, the SDK's default (legacy `initialize`, offering
 *   its latest 2025 revision). A 2025 revision: `versionNegotiation: { mode: 'legacy' }` and
 *   `supportedProtocolVersions: [revision]` (the legacy handshake offers the first 2025-era entry). A 2026
 *   revision: `mode: 'auto'` (probe with `server/discover`, fall back to `initialize` without modern evidence).
 *   On the SDK's own stdio transport `auto` probes on a short-lived sibling child spawned from the same
 *   parameters: one extra spawn of the stdio command per connect.
 * - Transport errors reach `client.onerror` (Protocol.connect chains `transport.onerror` into it), so only
 *   `client.onerror` is set: setting both would print every transport error twice. A failed send is both
 *   reported there and thrown from its request: it is printed once, by the failing step (see `failure`).
 * - Progress handlers are dropped when the response arrives: a late progress notification never reaches
 *   `onprogress`, it is reported through `onerror` ("unknown token"), hence a `transport-error` line.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientOptions, Client as SdkClient, Transport } from '@modelcontextprotocol/client';

const CLIENT = 'ts-v2';
const SDK = '@modelcontextprotocol/client';
const CLIENT_INFO = { name: 'mcp-interop-ts-v2', version: '0.1.0' };
/** After a result, progress arriving within this window is still recorded (`afterResult: true`). */
const AFTER_RESULT_MS = 100;
const TEXT_LIMIT = 500;

// ---- output: one JSON object per line on stdout; `at` is ms since the process started (monotonic) ----

type Mode = 'http' | 'stdio';
const MODES: readonly Mode[] = ['http', 'stdio'];

const round = (ms: number) => Math.round(ms * 10) / 10;
const now = () => round(performance.now());
/** One whole line per write call: the two modes' lines never interleave inside a line. */
function emit(step: string, mode: Mode | undefined, fields: Record<string, unknown> = {}, at = now()): void {
  process.stdout.write(`${JSON.stringify({ step, at, ...(mode && { mode }), ...fields })}\n`);
}
const errorText = (err: unknown): string => (err instanceof Error ? err.message || err.name : String(err));

/**
 * `transport-error` lines are for errors the SDK reports outside a request. Its HTTP transport also hands a
 * failed send (a 401, a refused connection) to `onerror` and then throws that same error from the request:
 * such an error is printed once, by the step that failed. So an `onerror` report waits for the current
 * microtasks (where the request's rejection travels) and is dropped if a step has printed it meanwhile.
 */
const surfaced = new WeakSet<object>();
const pendingErrors = new Set<{ err: unknown; at: number; mode: Mode }>();
function flushTransportErrors(): void {
  for (const entry of pendingErrors) {
    pendingErrors.delete(entry);
    if (typeof entry.err === 'object' && entry.err !== null && surfaced.has(entry.err)) continue;
    emit('transport-error', entry.mode, { error: errorText(entry.err) }, entry.at);
  }
}
/** The `onerror` handler of a connection made for `mode`. */
const transportError = (mode: Mode) => (err: unknown): void => {
  pendingErrors.add({ err, at: now(), mode });
  setTimeout(flushTransportErrors, 0);
};
/** The text of an error a step prints; the error is then not printed again as a `transport-error`. */
function failure(err: unknown): string {
  if (typeof err === 'object' && err !== null) surfaced.add(err);
  return errorText(err);
}

async function exit(code: number): Promise<never> {
  flushTransportErrors();
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}
/** A fatal before any mode started (bad input, a missing SDK): no `mode`. */
async function fatal(err: unknown): Promise<never> {
  emit('fatal', undefined, { error: errorText(err) });
  return exit(1);
}

/** Every page of tools/list, following nextCursor as an agent does (the SDK returns one page); bounded like the python client. */
async function listAllTools(client: SdkClient, timeoutMs: number): Promise<{ name: string }[]> {
  const tools: { name: string }[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs });
    tools.push(...result.tools);
    if (typeof result.nextCursor !== 'string' || result.nextCursor === '') return tools;
    cursor = result.nextCursor;
  }
  throw new Error('tools/list still had a nextCursor after 100 pages');
}

/** Rejects after `ms` if `promise` has not settled: a bound on top of the SDK's own request timeout. */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

// ---- input: environment only ----

interface PlanCall {
  tool: string;
  arguments: Record<string, unknown>;
  streaming: boolean;
}
interface Plan {
  calls: PlanCall[];
  timeoutMs: number;
}
interface StdioSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  keyEnv: string;
}
interface Config {
  /** The modes to run, concurrently, in INTEROP_MODE's order. */
  modes: Mode[];
  http?: { url: URL; headers: Record<string, string> };
  stdio?: StdioSpec;
  key?: string;
  badKey?: string;
  /** INTEROP_BAD_KEY_MODES: the modes whose script includes the bad-key step (default: every mode run). */
  badKeyModes: Set<Mode>;
  revision: string;
  plan: Plan;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(name: string): unknown {
  const raw = process.env[name];
  if (raw === undefined || raw === '') throw new Error(`${name} is not set`);
  try {
    return JSON.parse(raw);
  } catch {
    // INTEROP_HEADERS may hold secrets: never quote a value.
    throw new Error(`${name} is not valid JSON`);
  }
}

function stringRecord(name: string, value: unknown): Record<string, string> {
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'string')) throw new Error(`${name} must be a JSON object of strings`);
  return value as Record<string, string>;
}

/** A comma list of modes (`http`, `stdio`), without repeats, in its order. */
function modeList(name: string, raw: string): Mode[] {
  const items = raw.split(',').map((m) => m.trim());
  if (items.some((m) => !MODES.includes(m as Mode))) throw new Error(`${name} must be "http", "stdio" or "http,stdio" (got ${JSON.stringify(raw)})`);
  return [...new Set(items as Mode[])];
}

function readConfig(): Config {
  const key = process.env.MCP_API_KEY || undefined;
  const badKey = process.env.INTEROP_BAD_KEY || undefined;
  const revision = process.env.INTEROP_REVISION || 'default';
  if (revision !== 'default' && !/^\d{4}-\d{2}-\d{2}$/.test(revision)) throw new Error(`INTEROP_REVISION must be "default" or a revision such as 2025-11-25 (got ${JSON.stringify(revision)})`);
  const rawPlan = parseJson('INTEROP_PLAN');
  if (!isObject(rawPlan) || !Array.isArray(rawPlan.calls)) throw new Error('INTEROP_PLAN must be {"calls": [...], "timeoutMs": number}');
  const calls = rawPlan.calls.map((c: unknown, i: number): PlanCall => {
    if (!isObject(c) || typeof c.tool !== 'string') throw new Error(`INTEROP_PLAN.calls[${i}] needs a "tool" string`);
    return { tool: c.tool, arguments: isObject(c.arguments) ? c.arguments : {}, streaming: c.streaming === true };
  });
  const timeoutMs = typeof rawPlan.timeoutMs === 'number' && rawPlan.timeoutMs > 0 ? rawPlan.timeoutMs : 30_000;
  const plan: Plan = { calls, timeoutMs };
  const modes = modeList('INTEROP_MODE', process.env.INTEROP_MODE ?? '');
  const rawBadKeyModes = process.env.INTEROP_BAD_KEY_MODES;
  const badKeyModes = new Set(rawBadKeyModes ? modeList('INTEROP_BAD_KEY_MODES', rawBadKeyModes) : modes);
  const cfg: Config = { modes, key, badKey, badKeyModes, revision, plan };
  if (modes.includes('http')) {
    const rawUrl = process.env.INTEROP_URL;
    if (!rawUrl) throw new Error('INTEROP_URL is not set');
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new Error('INTEROP_URL is not a valid absolute URL');
    }
    const headers = process.env.INTEROP_HEADERS ? stringRecord('INTEROP_HEADERS', parseJson('INTEROP_HEADERS')) : {};
    cfg.http = { url, headers };
  }
  if (modes.includes('stdio')) {
    const raw = parseJson('INTEROP_STDIO');
    if (!isObject(raw) || typeof raw.command !== 'string') throw new Error('INTEROP_STDIO needs a "command" string');
    const args = Array.isArray(raw.args) && raw.args.every((a) => typeof a === 'string') ? (raw.args as string[]) : [];
    const env = raw.env === undefined ? {} : stringRecord('INTEROP_STDIO.env', raw.env);
    const keyEnv = typeof raw.keyEnv === 'string' && raw.keyEnv !== '' ? raw.keyEnv : 'CANVAS_API_KEY';
    cfg.stdio = { command: raw.command, args, env, keyEnv };
  }
  return cfg;
}

/**
 * The client options for INTEROP_REVISION: `default` leaves negotiation to the SDK; a 2025 (or older) revision
 * runs the legacy `initialize` offering exactly that revision; a later one negotiates automatically
 * (`server/discover` first).
 */
function negotiationFor(revision: string): { options: Pick<ClientOptions, 'versionNegotiation' | 'supportedProtocolVersions'>; pinned: boolean } {
  if (revision === 'default') return { options: {}, pinned: false };
  if (revision < '2026') return { options: { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: [revision] }, pinned: true };
  return { options: { versionNegotiation: { mode: 'auto' } }, pinned: true };
}

/** The installed SDK's version, from the package.json above the module the resolver picks. */
function sdkVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve(SDK)));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === SDK && pkg.version) return pkg.version;
    } catch {
      // no package.json here: keep climbing
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the version of ${SDK}`);
    dir = up;
  }
}

// ---- the program ----

type MakeTransport = (key: string | undefined) => Transport;

/** Only the transport modules the modes need are imported: every module costs startup time. */
async function load() {
  const cfg = readConfig();
  const { Client } = await import('@modelcontextprotocol/client');
  const makeTransport: Partial<Record<Mode, MakeTransport>> = {};
  const { http, stdio } = cfg;
  if (http) {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    makeTransport.http = (key) => {
      // One Authorization header: a same-named INTEROP_HEADERS entry (any case) gives way to the key.
      const headers = Object.fromEntries(Object.entries(http.headers).filter(([name]) => !key || name.toLowerCase() !== 'authorization'));
      if (key) headers.authorization = `Bearer ${key}`;
      return new StreamableHTTPClientTransport(http.url, { requestInit: { headers } });
    };
  }
  if (stdio) {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    makeTransport.stdio = (key) => {
      // The child gets this environment, plus INTEROP_STDIO.env, plus keyEnv=the key (absent key: no key variable).
      const env: Record<string, string> = {};
      for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
      Object.assign(env, stdio.env);
      if (key) env[stdio.keyEnv] = key;
      else delete env[stdio.keyEnv];
      return new StdioClientTransport({ command: stdio.command, args: stdio.args, env, stderr: 'inherit' });
    };
  }
  return { cfg, version: sdkVersion(), Client, makeTransport };
}

const { cfg, version, Client, makeTransport } = await load().catch(fatal);
const timeoutMs = cfg.plan.timeoutMs;
const { options: negotiation, pinned } = negotiationFor(cfg.revision);

interface Connection {
  client: SdkClient;
  transport: Transport;
}

interface ProgressRecord {
  progress: number;
  total?: number;
  at: number;
  afterResult: boolean;
}

async function closeQuietly(connection: Connection): Promise<void> {
  await bounded(connection.client.close(), 5_000, 'close').catch(() => {});
}

/** The whole script (start, connect, list, calls, bad-key, close) over one mode; every line carries `mode`. */
async function runMode(mode: Mode): Promise<void> {
  const say = (step: string, fields: Record<string, unknown> = {}) => emit(step, mode, fields);
  const transportFor = makeTransport[mode]!;

  /** A client configured as an agent would from its `mcpServers` entry, with `key` (or none). */
  function makeConnection(key: string | undefined): Connection {
    const transport = transportFor(key);
    const client = new Client(CLIENT_INFO, { capabilities: {}, ...negotiation });
    client.onerror = transportError(mode);
    return { client, transport };
  }

  /** A streaming call that timed out: the later ones would each wait as long, and the row already fails on it. */
  let streamingTimedOut: string | undefined;

  async function callStep(client: SdkClient, call: PlanCall): Promise<void> {
    if (call.streaming && streamingTimedOut) {
      say('call', { tool: call.tool, ok: false, error: `not called: ${streamingTimedOut} timed out, and this call would wait as long`, progress: [] });
      return;
    }
    const progress: ProgressRecord[] = [];
    let resultAt: number | undefined;
    const sent = performance.now();
    const since = () => round(performance.now() - sent);
    try {
      const result = await bounded(
        client.callTool({ name: call.tool, arguments: call.arguments }, {
          timeout: timeoutMs,
          onprogress: (p) => {
            progress.push({ progress: p.progress, ...(p.total !== undefined && { total: p.total }), at: since(), afterResult: resultAt !== undefined });
          },
        }),
        timeoutMs + 1_000,
        `tools/call ${call.tool}`,
      );
      resultAt = since();
      await new Promise((r) => setTimeout(r, AFTER_RESULT_MS));
      const content = Array.isArray(result.content) ? (result.content as { type?: unknown; text?: unknown }[]) : [];
      const text = content.find((c) => c.type === 'text' && typeof c.text === 'string')?.text as string | undefined;
      say('call', {
        tool: call.tool,
        ok: true,
        progress,
        resultAt,
        isError: result.isError === true,
        ...(text !== undefined && { text: text.slice(0, TEXT_LIMIT) }),
      });
    } catch (err) {
      const error = failure(err);
      if (call.streaming && /timed? ?out/i.test(JSON.stringify(error))) streamingTimedOut = `the call of ${call.tool}`;
      say('call', { tool: call.tool, ok: false, error, progress });
    }
  }

  async function badKeyStep(): Promise<void> {
    if (!cfg.badKey) {
      say('bad-key', { skipped: 'no bad key given' });
      return;
    }
    if (!cfg.badKeyModes.has(mode)) {
      say('bad-key', { skipped: 'not asked in this mode' });
      return;
    }
    const bad = makeConnection(cfg.badKey);
    try {
      await bounded(bad.client.connect(bad.transport, { timeout: timeoutMs }), timeoutMs + 1_000, 'connect');
      await bounded(bad.client.listTools(undefined, { timeout: timeoutMs }), timeoutMs + 1_000, 'tools/list');
      say('bad-key', { ok: false, accepted: true });
    } catch (err) {
      say('bad-key', { ok: true, error: failure(err) });
    } finally {
      await closeQuietly(bad);
    }
  }

  say('start', { client: CLIENT, sdk: SDK, version });

  const main = makeConnection(cfg.key);
  let connected = false;
  try {
    await bounded(main.client.connect(main.transport, { timeout: timeoutMs }), timeoutMs + 1_000, 'connect');
    connected = true;
    say('connect', { ok: true, protocolVersion: main.client.getNegotiatedProtocolVersion() ?? null, pinned });
  } catch (err) {
    say('connect', { ok: false, error: failure(err) });
  }

  if (connected) {
    try {
      const tools = await bounded(listAllTools(main.client, timeoutMs), timeoutMs + 1_000, 'tools/list');
      say('list', { ok: true, tools: tools.map((t) => t.name) });
    } catch (err) {
      say('list', { ok: false, error: failure(err) });
    }
    for (const call of cfg.plan.calls) await callStep(main.client, call);
  }

  await badKeyStep();

  try {
    await bounded(main.client.close(), 5_000, 'close');
    say('close', { ok: true });
  } catch (err) {
    say('close', { ok: false, error: failure(err) });
  }
}

// The modes run side by side; the process exits once every one of them has closed. A mode that throws
// outside its steps (a bug, not a service failure) prints its own `fatal` and the exit code becomes 1.
const codes = await Promise.all(
  cfg.modes.map((mode) =>
    runMode(mode).then(
      () => 0,
      (err: unknown) => {
        emit('fatal', mode, { error: errorText(err) });
        return 1;
      },
    ),
  ),
);
await exit(Math.max(0, ...codes));
