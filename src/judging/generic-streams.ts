import { runSecrets } from '../engine/check.js';
import { McpSession } from '../mcp/mcp-session.js';
import { listTools, type ListedTool } from '../profile/profile-derive.js';
import { onDeployment, smallestInstance, type Tool } from '../properties/tool-calls.js';
import fc from 'fast-check';
import { schemaValidator, validValues } from '../properties/schema-arbitrary.js';
import { CLOSE_GRACE_MS, isProgress, progressOf, VARIANTS, type Variant } from '../mcp/stream-reading.js';
import { openSession, sessionRevision } from '../targets/session-lifecycle.js';
import { openStandaloneStream, type StandaloneStream } from '../wire/standalone-stream.js';
import type { TargetInfo } from '../targets/target-info.js';
import { WireClient, type WireResponse } from '../wire/client.js';
import type { Exchange } from '../wire/exchange.js';
import type { RunState } from '../engine/run-state.js';
import { eachLimited } from '../kit/each-limited.js';

/**
 * Streaming calls of any MCP server (suites/streaming-generic.suite.ts): the calls a profile declares as
 * streaming (it expects their progress), or, declaring none, the tools that send notifications/progress when
 * called with a progress token, found by calling each with its smallest instance, then a few larger ones (a
 * countdown from 0 rightly streams nothing), until one sends progress ("The receiver MAY send progress notifications").
 * Then one round: each call with a string token, an integer token and none, side by side.
 */

/** Streaming calls judged per run: rows for a fourth would repeat what three show. */
export const STREAM_SLOTS = 3;
/** Tools called to find those that send progress, and how many at once. */
const MAX_PROBES = 8;
const PROBES_AT_ONCE = 4;
/** Argument sets tried per tool, the smallest first: the budget of a probe is MAX_PROBES x this many calls. */
const INSTANCES_PER_TOOL = 3;
/** A probe's deadline: a tool slower than this with its smallest arguments is no sample of streaming. */
const PROBE_DEADLINE_MS = 5000;
/**
 * After a call's response, how long its progress may still be on its way on the standalone stream: another
 * connection, with no order between the two.
 */
const STANDALONE_GRACE_MS = 300;

export interface GenericCall {
  tool: string;
  args: Record<string, unknown>;
  /** The profile declares the call streaming: its progress is expected, not just allowed. */
  declared: boolean;
  /** Found by its progress on the session's standalone GET stream, not in its reply. */
  onStandalone?: boolean;
}

export interface GenericStream {
  call: GenericCall;
  variant: Variant;
  id: string | number;
  token?: string | number;
  res?: WireResponse;
  error?: string;
  exchanges: Exchange[];
  /** Progress notifications with this call's token that came on the session's standalone GET stream instead. */
  elsewhere: any[];
}

/** The session's standalone GET stream, held open through the probes and the round (a stateful server only). */
export interface StandaloneRecord {
  /** The GET as recorded. */
  exchanges: Exchange[];
  /** The GET's reply, or why there was none. */
  res?: WireResponse;
  error?: string;
  /** Every JSON-RPC message that came on it. */
  messages: unknown[];
  /** The progress tokens of the requests that ran while it was open (the probes' and the round's). */
  tokens: (string | number)[];
}

export interface GenericRound {
  calls: GenericCall[];
  streams: GenericStream[];
  /** Why fewer calls than slots (or none) were found. */
  why: string;
  /** The probes and the tools/list before them. */
  discovery: Exchange[];
  deadlineMs: number;
  /** Absent: the server keeps no session, so there is no standalone stream to read. */
  standalone?: StandaloneRecord;
}

export function genericRound(run: RunState, target: TargetInfo): Promise<GenericRound> {
  return run.once('generic streaming round', () => runRound(run, target));
}

async function runRound(run: RunState, runTarget: TargetInfo): Promise<GenericRound> {
  // A stateful server: the round runs in a session of its own, whose standalone stream is open throughout, so
  // every message on it concerns the round's requests alone.
  const revision = runTarget.sessionId !== undefined ? sessionRevision(runTarget) : undefined;
  const own = revision ? await openSession(run, runTarget, revision) : undefined;
  const target: TargetInfo = own ? { ...runTarget, sessionId: own.sessionId } : runTarget;
  const secrets = runSecrets(target);
  const session = (log: Exchange[]) => new McpSession(new WireClient(log, () => secrets, { run }), target);
  const deadlineMs = run.settings.timeoutMs;
  const standaloneLog: Exchange[] = [];
  let stream: StandaloneStream | undefined;
  try {
    if (own) stream = openStandaloneStream(new WireClient(standaloneLog, () => secrets, { run }), target.mcpUrl, session(standaloneLog).headers(), STANDALONE_MAX_MS);
  } catch {
    // No headers to send (a service target without a key): the calls say why themselves.
  }
  const tokens: (string | number)[] = [];
  try {
    const discovery: Exchange[] = [];
    const { calls, why } = await findCalls(target, session(discovery), Math.min(deadlineMs, PROBE_DEADLINE_MS), stream?.messages, tokens);
    const streams: GenericStream[] = calls.flatMap((call, slot) => VARIANTS.map((variant): GenericStream => ({
      call, variant, exchanges: [], elsewhere: [],
      ...(variant === 'string token' ? { id: run.ids.named('stream'), token: `tok-${slot + 1}-${run.settings.seed % 10_000}` } : variant === 'integer token' ? { id: run.ids.next(), token: slot * 7 } : { id: run.ids.next() }),
    })));
    tokens.push(...streams.flatMap((s) => (s.token === undefined ? [] : [s.token])));
    await Promise.all(streams.map(async (s) => {
      try {
        s.res = await session(s.exchanges).call(s.call.tool, s.call.args, { id: s.id, ...(s.token !== undefined && { progressToken: s.token }), timeoutMs: deadlineMs, afterResponseMs: CLOSE_GRACE_MS });
      } catch (err) {
        s.error = (err as Error).message;
      }
    }));
    let standalone: StandaloneRecord | undefined;
    if (stream) {
      await sleep(STANDALONE_GRACE_MS);
      const { res, error } = await stream.close();
      standalone = { exchanges: standaloneLog, ...(res && { res }), ...(error !== undefined && { error }), messages: stream.messages, tokens };
      for (const s of streams) if (s.token !== undefined) s.elsewhere = stream.messages.filter((m) => progressFor(m, s.token!));
      stream = undefined; // closed: the finally below closes it only when the round ended early
    }
    return { calls, streams, why, discovery, deadlineMs, ...(standalone && { standalone }) };
  } finally {
    await stream?.close();
    await own?.close();
  }
}

/** The standalone stream is read for the whole round at most this long (closed as soon as the round ends). */
const STANDALONE_MAX_MS = 300_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether `m` is a progress notification for `token`: the same value, in any JSON type (7 for "7"), so that
 * stream-progress-token judges the type of what came on the standalone stream too.
 */
const progressFor = (m: unknown, token: string | number): boolean => isProgress(m) && String((m as any).params?.progressToken) === String(token);

/** The profile's declared streaming calls, else the first tools that send progress for a progress token. */
/**
 * `standalone`: the messages of the session's standalone stream, read as they come (absent: the server keeps no
 * session); a probe's progress found there counts as much as in its reply. `tokens` gets every probe's token.
 */
async function findCalls(target: TargetInfo, mcp: McpSession, deadlineMs: number, standalone: readonly unknown[] | undefined, tokens: (string | number)[]): Promise<{ calls: GenericCall[]; why: string }> {
  const declared = Object.values(target.profile.streaming).slice(0, STREAM_SLOTS).map((r) => ({ tool: r.tool, args: r.arguments, declared: true }));
  if (declared.length > 0) return { calls: declared, why: `the profile "${target.profile.name}" declares ${declared.length} streaming call(s)` };
  const listed = await listTools(mcp);
  if (typeof listed === 'string') return { calls: [], why: `tools/list could not be read, so no tool was tried for progress: ${listed}` };
  // On a deployment, only tools that say they change nothing are called (src/properties/tool-calls.ts).
  const eligible = listed.filter((t) => !onDeployment(target) || t.annotations?.readOnlyHint === true);
  const probes = eligible.slice(0, MAX_PROBES).map((t) => ({ t, instances: instancesOf(t, mcp.http.run.settings.seed) })).filter((p) => p.instances.length > 0);
  const found: GenericCall[] = [];
  const tried = new Map<string, string[]>();
  await eachLimited(probes, PROBES_AT_ONCE, async (p) => {
    // One instance after another, so a tool that streams is called no more than it takes to see it.
    for (const args of p.instances) {
      tried.set(p.t.name, [...(tried.get(p.t.name) ?? []), JSON.stringify(args)]);
      const token = mcp.http.run.ids.named('probe');
      tokens.push(token);
      const id = mcp.http.run.ids.next();
      const res = await mcp.call(p.t.name, args, { id, progressToken: token, timeoutMs: deadlineMs }).catch(() => undefined);
      // A call still running at the deadline is told to stop.
      if (!res || (!res.closed && res.readUntil !== 'response')) await mcp.cancel(id, 'the probe for progress is done');
      if (res && progressOf(res).some((x) => x.m.params?.progressToken === token)) {
        found.push({ tool: p.t.name, args, declared: false });
        return;
      }
      // Its progress may have gone to the standalone stream instead ("never say a tool sends none when it went elsewhere").
      if (standalone) {
        await sleep(standalone.some((m) => progressFor(m, token)) ? 0 : STANDALONE_GRACE_MS);
        if (standalone.some((m) => progressFor(m, token))) {
          found.push({ tool: p.t.name, args, declared: false, onStandalone: true });
          return;
        }
      }
    }
  });
  // In tools/list order, whatever order the probes ended in.
  const calls = probes.map((p) => found.find((f) => f.tool === p.t.name)).filter((f): f is GenericCall => f !== undefined).slice(0, STREAM_SLOTS);
  const triedText = probes.map((p) => `${p.t.name} with ${tried.get(p.t.name)?.join(', ') ?? 'nothing'}`).join('; ') || 'none';
  const skipped = listed.length - eligible.length;
  const elsewhere = calls.filter((c) => c.onStandalone).length;
  return {
    calls,
    why: `${calls.length} of the tools tried (${triedText}${skipped > 0 ? `; ${skipped} left out on a deployment, not read-only` : ''}) sent notifications/progress when called with a progress token`
      + (elsewhere > 0 ? `, ${elsewhere} of them on the session's standalone GET stream instead of the reply` : standalone ? ' (looked for in the reply and on the session\'s standalone GET stream)' : ''),
  };
}

/**
 * Up to INSTANCES_PER_TOOL distinct argument objects its inputSchema accepts, the smallest first, then seeded
 * samples (larger values); empty when the schema cannot be read or none is found.
 */
function instancesOf(t: ListedTool, seed: number): Record<string, unknown>[] {
  if (typeof t.inputSchema !== 'object' || t.inputSchema === null) return [];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  try {
    const schema = t.inputSchema as Record<string, unknown>;
    const validate = schemaValidator(schema);
    const tool: Tool = { name: t.name, readOnly: true, schema, validate, streaming: false };
    const smallest = smallestInstance(tool, {}, seed);
    const samples = fc.sample(validValues(schema), { seed, numRuns: 20 }).filter((v) => validate(v));
    const seen = new Set<string>();
    return [smallest, ...samples].filter(isObject).filter((v) => !seen.has(JSON.stringify(v)) && seen.add(JSON.stringify(v))).slice(0, INSTANCES_PER_TOOL);
  } catch {
    return [];
  }
}
