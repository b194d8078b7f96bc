import { randomBytes } from 'node:crypto';
import { bootstrapWorkspace } from '../judging/fresh-workspace.js';
import { McpSession } from '../mcp/mcp-session.js';
import { fill, type CallRecipe } from '../profile/profile.js';
import type { TargetInfo } from '../targets/target-info.js';
import { WireClient } from '../wire/client.js';
import { redact } from '../wire/redact.js';
import { ownProxyCommand } from '../targets/stdio.js';
import type { Exchange } from '../wire/exchange.js';
import type { Revision } from '../catalog/types.js';
import { CLIENTS, type ClientId } from './clients.js';
import { startRecordingProxy } from './recording-proxy.js';
import type { RunState } from '../engine/run-state.js';
import { runClient, STARTUP_GRACE_MS, type ClientRun } from './run-client.js';
import { epochNow, measureStartup, startupAllowance, watchStalls, type Stall } from './machine.js';

/**
 * The interop matrix: every selected SDK client runs the same script (src/interop/clients/README.md) over
 * HTTP and through the stdio proxy at once, in one process per client, all clients side by side, once per run;
 * the matrix rows judge what each printed. Its
 * requests go to a workspace of its own when the run may bootstrap one (its blocks, and its rate bucket, are
 * nobody else's), each client through a recording proxy of its own (its wire log).
 */

export type Mode = 'http' | 'stdio';

/** The name under which the run shares the matrix with its checks (src/budget/run-ledger.ts). */
export const MATRIX_WORK = 'interop-matrix';

/** What the matrix needs of a run: the target, and the requests it makes itself (bootstrap, profile setup), recorded. */
export interface MatrixContext {
  target: TargetInfo;
  /** Records into `setupWire`. */
  http: WireClient;
}

export interface PlannedCall {
  tool: string;
  arguments: Record<string, unknown>;
  streaming: boolean;
  expectError?: boolean;
}

export interface Cell {
  client: ClientId;
  mode: Mode;
  /** The command that installs the client's runtime. */
  install: string;
  /** The revisions the client's handshake can settle on, as run (its SDK's default, or the pinned one). */
  speaks: Revision[];
  /** Why the cell did not run: the client's runtime is missing (with the install command), or the mode does not apply. */
  notRun?: { reason: string; notApplicable?: boolean };
  run?: ClientRun;
  wire: Exchange[];
  requests: number;
  /** A 429 the harness could not wait out, passed on to the client: the cell fails with it (a throttle is never a pass). */
  throttled?: string;
}

export interface Matrix {
  calls: PlannedCall[];
  /** Why a streaming tool of the service has no call in the plan (a profile gap, a failed setup). */
  gaps: string[];
  badKey: 'revoked' | 'wrong' | 'none';
  /** The revisions the target was found to speak. */
  revisions: Revision[];
  cells: Cell[];
  notes: string[];
  /** The matrix's own requests before the clients ran: the bootstrap of its workspace, the profile's setup calls. */
  setupWire: Exchange[];
  wallMs: number;
  /** The deadline of one request the clients were given: the run's, plus what this machine's start-up asked for. */
  timeoutMs?: number;
  /** The harness's own event-loop stalls while the clients ran (src/interop/machine.ts). */
  stalls?: Stall[];
}

/** The plan's calls: each streaming recipe (filled after the profile's setup), then one non-streaming call. */
async function plan(c: MatrixContext, key: string | undefined, notes: string[]): Promise<{ calls: PlannedCall[]; gaps: string[] }> {
  const profile = c.target.profile;
  const gaps = Object.entries(profile.gaps ?? {}).map(([name, why]) => `${name}: ${why}`);
  const recipes = Object.values(profile.streaming);
  let vars: Record<string, unknown> = {};
  if (recipes.some((r) => JSON.stringify(r.arguments).includes('{{'))) {
    try {
      vars = await new McpSession(c.http, { ...c.target, ...(key && { apiKey: key }) }).setup();
    } catch (err) {
      notes.push(`the profile's setup calls failed (${(err as Error).message}): recipes needing their ids are left out`);
    }
  }
  const calls: PlannedCall[] = [];
  for (const r of recipes) {
    const args = fill(r.arguments, vars) as Record<string, unknown>;
    if (JSON.stringify(args).includes('{{')) {
      gaps.push(`${r.tool}: its recipe needs ids the setup did not capture`);
      continue;
    }
    calls.push({ tool: r.tool, arguments: args, streaming: true, ...(r.expectError && { expectError: true }) });
  }
  const plain: CallRecipe | undefined = profile.calls.listBlocks;
  if (plain) calls.push({ tool: plain.tool, arguments: fill(plain.arguments, vars) as Record<string, unknown>, streaming: false });
  return { calls, gaps };
}

/** The stdio command's environment without its key: the client puts the key it is testing there itself. */
function withoutKey(env: Record<string, string> = {}): Record<string, string> {
  const { CANVAS_API_KEY: _key, ...rest } = env;
  return rest;
}

/**
 * Runs one client program for its cells (over HTTP, and through the stdio proxy when there is one) in one
 * process: both transports at once, each through a recording proxy of its own; its lines split by `mode`.
 */
async function runClientCells(c: MatrixContext, cells: Cell[], env: Record<string, string>, secrets: () => readonly string[], stdioCommand: string[] | undefined, deadlines: { stepMs: number; startupGraceMs: number }): Promise<void> {
  const proxies = await Promise.all(cells.map(() => startRecordingProxy(c.http.run, c.target.mcpUrl, secrets)));
  try {
    const modeEnv: Record<string, string> = { INTEROP_MODE: cells.map((cell) => cell.mode).join(','), INTEROP_BAD_KEY_MODES: 'http' };
    cells.forEach((cell, i) => {
      if (cell.mode === 'http') Object.assign(modeEnv, { INTEROP_URL: proxies[i]!.endpoint, INTEROP_HEADERS: JSON.stringify(c.target.headers) });
      else {
        modeEnv.INTEROP_STDIO = JSON.stringify({
          command: stdioCommand![0], args: stdioCommand!.slice(1),
          // The stdio proxy forwards to a recording proxy, so its HTTP side is in the wire log too.
          env: { ...withoutKey(c.target.stdio?.env), CANVAS_MCP_URL: proxies[i]!.endpoint }, keyEnv: 'CANVAS_API_KEY',
        });
      }
    });
    const run = await runClient(CLIENTS[cells[0]!.client], { ...env, ...modeEnv }, deadlines.stepMs, secrets, deadlines.startupGraceMs);
    // A line without a mode (bad input before either transport started) concerns both.
    for (const cell of cells) cell.run = { ...run, lines: run.lines.filter((l) => l.mode === cell.mode || l.mode === undefined) };
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    cells.forEach((cell, i) => {
      cell.wire = proxies[i]!.log;
      cell.requests = proxies[i]!.counts.requests;
      const throttled = proxies[i]!.throttled();
      if (throttled) cell.throttled = throttled;
    });
  }
}

/**
 * The stdio command the clients spawn: the target's (--target stdio, where the repository's own proxy is
 * already compiled); on the embedded target, the repository's proxy, compiled (src/targets/stdio.ts).
 */
async function stdioCommandFor(c: MatrixContext): Promise<{ command: string[]; where: string } | undefined> {
  if (c.target.stdio) return { command: [c.target.stdio.command, ...c.target.stdio.args], where: 'the target\'s stdio command' };
  return c.target.kind === 'embedded' ? { command: await ownProxyCommand(), where: 'the repository\'s stdio proxy, pointed at the embedded server' } : undefined;
}

/**
 * Runs the matrix (every cell side by side) beside the run's checks: its client processes mostly wait on
 * the target (src/engine/run.ts shares the result with the interop-matrix checks through the run's ledger).
 */
export async function startMatrix(run: RunState, target: TargetInfo, selected: readonly ClientId[]): Promise<Matrix> {
  const setupWire: Exchange[] = [];
  const secrets = [target.apiKey, target.otherKey, target.revokedKey, target.admin?.token, target.sessionId].filter((k): k is string => !!k);
  // The proxies forward on this event loop: a stall of it delays replies, which the wire then records as slow.
  const watch = watchStalls();
  let matrix: Matrix;
  try {
    matrix = await runMatrix({ target, http: new WireClient(setupWire, () => secrets, { run }) }, selected, secrets, watch.stalls);
  } finally {
    watch.stop();
  }
  // Keys learnt here (the bootstrapped workspace's) were recorded before they were known.
  matrix.setupWire = setupWire.map((x) => JSON.parse(redact(JSON.stringify(x), secrets)) as Exchange);
  return matrix;
}

/**
 * `extra`: the run's secrets, to which the matrix adds the keys it makes (its workspace's, the wrong one);
 * `stalls`: the harness's event-loop stalls so far.
 */
async function runMatrix(c: MatrixContext, selected: readonly ClientId[], extra: string[], stalls: () => Stall[]): Promise<Matrix> {
  const started = performance.now();
  const startedAt = epochNow();
  const notes: string[] = [];
  const { run } = c.http;
  const { settings } = run;
  const secrets = () => [...Object.values(c.target.headers), ...extra].filter((k): k is string => !!k);
  // A workspace of the matrix's own: eight clients' calls, blocks and bursts touch no other check's.
  let key = c.target.apiKey;
  if (c.target.canBootstrap) {
    const fresh = await bootstrapWorkspace(run, c.target, extra, 'interop-matrix');
    c.http.log.push(...fresh.exchanges);
    if (fresh.key) key = fresh.key;
    notes.push(fresh.key ? 'the clients used a workspace bootstrapped for the matrix' : `the clients used the run's key (${fresh.note})`);
  }
  const { calls, gaps } = await plan(c, key, notes);
  const wrong = `${c.target.keyPrefix ?? 'canvas'}_live_${randomBytes(18).toString('base64url')}`;
  extra.push(wrong);
  run.keys.learnSecret(wrong); // not a live key, but a key-shaped credential the clients print: the report door redacts it
  const badKey = c.target.revokedKey ? 'revoked' : key ? 'wrong' : 'none';
  // "Give deadlines that scale with measured start-up rather than fixed milliseconds" (issue 33): a connect over
  // stdio includes starting the proxy, and four runtimes start at once; on a starved machine that takes seconds.
  const startupMs = await measureStartup();
  const allowance = startupAllowance(startupMs);
  const timeoutMs = settings.timeoutMs + allowance;
  notes.push(`node started in ${startupMs} ms on this machine just before the clients: each client's deadline per request was the run's ${settings.timeoutMs} ms + ${allowance} ms, and its start-up grace ${(STARTUP_GRACE_MS + allowance) / 1000} s`);
  const env: Record<string, string> = {
    INTEROP_REVISION: settings.protocol === 'auto' ? 'default' : settings.protocol,
    INTEROP_PLAN: JSON.stringify({ calls: calls.map(({ tool, arguments: a, streaming }) => ({ tool, arguments: a, streaming })), timeoutMs }),
    ...(key && { MCP_API_KEY: key }),
    ...(badKey !== 'none' && { INTEROP_BAD_KEY: c.target.revokedKey ?? wrong }),
  };
  const stdio = await stdioCommandFor(c);
  const cells: Cell[] = [];
  for (const id of selected) {
    for (const mode of ['http', 'stdio'] as const) {
      const cell: Cell = { client: id, mode, install: CLIENTS[id].install, speaks: CLIENTS[id].speaks(settings.protocol), wire: [], requests: 0 };
      const missing = CLIENTS[id].missing();
      if (missing) cell.notRun = { reason: `${missing}; install it with \`${CLIENTS[id].install}\`` };
      // A service with no key to give the client (the bootstrap refused, none given): nothing to connect with.
      else if (!key && c.target.profile.kind === 'service') cell.notRun = { reason: c.target.noKeyReason ?? 'the run holds no API key for the clients' };
      else if (mode === 'stdio' && !stdio) cell.notRun = { reason: 'the stdio proxy runs with --target stdio (or on the embedded target, the repository\'s proxy)', notApplicable: true };
      cells.push(cell);
    }
  }
  await Promise.all(selected.map((id) => cells.filter((cell) => cell.client === id && !cell.notRun)).filter((own) => own.length > 0)
    .map((own) => runClientCells(c, own, env, secrets, stdio?.command, { stepMs: timeoutMs, startupGraceMs: STARTUP_GRACE_MS + allowance })));
  notes.push(`the matrix sent ${cells.reduce((n, x) => n + x.requests, 0) + c.http.log.length} requests (${c.http.log.length} of its own setup, the rest its clients'); wall time ${((performance.now() - started) / 1000).toFixed(1)} s; per client (both transports in one process): ${cells.filter((x) => x.run && x.mode === 'http').map((x) => `${x.client} ${(x.run!.durationMs / 1000).toFixed(1)} s`).join(', ')}`);
  if (stdio && cells.some((cell) => cell.mode === 'stdio' && cell.run)) notes.push(`stdio: ${stdio.where}`);
  // What the deployment paid for: the requests went through the proxies (counted there), the blocks here.
  const created = cells.flatMap((cell) => cell.run?.lines ?? []).filter((l) => l.step === 'call' && l.ok === true && l.isError !== true && String(l.tool) === 'blocks.create').length;
  run.tally.add({ blocksCreated: created });
  const during = stalls().filter((s) => s.to >= startedAt);
  if (during.length > 0) notes.push(`the harness's event loop stalled ${during.length} time(s) while the clients ran, ${(during.reduce((n, s) => n + s.to - s.from, 0) / 1000).toFixed(1)} s in all (longest ${(Math.max(...during.map((s) => s.to - s.from)) / 1000).toFixed(1)} s)`);
  return { calls, gaps, badKey, revisions: c.target.revisions, cells, notes, setupWire: [], wallMs: Math.round(performance.now() - started), timeoutMs, stalls: during };
}
