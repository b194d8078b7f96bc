import { runSecrets } from './check.js';
import { runOnce } from './kit/run-scope.js';
import { McpSession } from './mcp-session.js';
import { listTools, type ListedTool } from './profile-derive.js';
import { onDeployment, smallestInstance, type Tool } from './properties/tool-calls.js';
import fc from 'fast-check';
import { schemaValidator, validValues } from './properties/schema-arbitrary.js';
import { CLOSE_GRACE_MS, progressOf, VARIANTS, type Variant } from './stream-reading.js';
import type { TargetInfo } from './target-info.js';
import { WireClient, type WireResponse } from './wire/client.js';
import type { Exchange } from './wire/exchange.js';
import { namedRequestId, requestId } from './wire/request-ids.js';
import { eachLimited } from './kit/each-limited.js';

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

export interface GenericCall {
  tool: string;
  args: Record<string, unknown>;
  /** The profile declares the call streaming: its progress is expected, not just allowed. */
  declared: boolean;
}

export interface GenericStream {
  call: GenericCall;
  variant: Variant;
  id: string | number;
  token?: string | number;
  res?: WireResponse;
  error?: string;
  exchanges: Exchange[];
}

export interface GenericRound {
  calls: GenericCall[];
  streams: GenericStream[];
  /** Why fewer calls than slots (or none) were found. */
  why: string;
  /** The probes and the tools/list before them. */
  discovery: Exchange[];
  deadlineMs: number;
}

export function genericRound(target: TargetInfo): Promise<GenericRound> {
  return runOnce('generic streaming round', () => runRound(target));
}

async function runRound(target: TargetInfo): Promise<GenericRound> {
  const secrets = runSecrets(target);
  const session = (log: Exchange[]) => new McpSession(new WireClient(log, () => secrets, target.timeoutMs), target);
  const deadlineMs = target.timeoutMs;
  const discovery: Exchange[] = [];
  const { calls, why } = await findCalls(target, session(discovery), Math.min(deadlineMs, PROBE_DEADLINE_MS));
  const streams: GenericStream[] = calls.flatMap((call, slot) => VARIANTS.map((variant): GenericStream => ({
    call, variant, exchanges: [],
    ...(variant === 'string token' ? { id: namedRequestId('stream'), token: `tok-${slot + 1}-${target.seed % 10_000}` } : variant === 'integer token' ? { id: requestId(), token: slot * 7 } : { id: requestId() }),
  })));
  await Promise.all(streams.map(async (s) => {
    try {
      s.res = await session(s.exchanges).call(s.call.tool, s.call.args, { id: s.id, ...(s.token !== undefined && { progressToken: s.token }), timeoutMs: deadlineMs, afterResponseMs: CLOSE_GRACE_MS });
    } catch (err) {
      s.error = (err as Error).message;
    }
  }));
  return { calls, streams, why, discovery, deadlineMs };
}

/** The profile's declared streaming calls, else the first tools that send progress for a progress token. */
async function findCalls(target: TargetInfo, mcp: McpSession, deadlineMs: number): Promise<{ calls: GenericCall[]; why: string }> {
  const declared = Object.values(target.profile.streaming).slice(0, STREAM_SLOTS).map((r) => ({ tool: r.tool, args: r.arguments, declared: true }));
  if (declared.length > 0) return { calls: declared, why: `the profile "${target.profile.name}" declares ${declared.length} streaming call(s)` };
  const listed = await listTools(mcp);
  if (typeof listed === 'string') return { calls: [], why: `tools/list could not be read, so no tool was tried for progress: ${listed}` };
  // On a deployment, only tools that say they change nothing are called (src/properties/tool-calls.ts).
  const eligible = listed.filter((t) => !onDeployment(target) || t.annotations?.readOnlyHint === true);
  const probes = eligible.slice(0, MAX_PROBES).map((t) => ({ t, instances: instancesOf(t, target.seed) })).filter((p) => p.instances.length > 0);
  const found: GenericCall[] = [];
  const tried = new Map<string, string[]>();
  await eachLimited(probes, PROBES_AT_ONCE, async (p) => {
    // One instance after another, so a tool that streams is called no more than it takes to see it.
    for (const args of p.instances) {
      tried.set(p.t.name, [...(tried.get(p.t.name) ?? []), JSON.stringify(args)]);
      const token = namedRequestId('probe');
      const id = requestId();
      const res = await mcp.call(p.t.name, args, { id, progressToken: token, timeoutMs: deadlineMs }).catch(() => undefined);
      // A call still running at the deadline is told to stop.
      if (!res || (!res.closed && res.readUntil !== 'response')) await mcp.cancel(id, 'the probe for progress is done');
      if (res && progressOf(res).some((x) => x.m.params?.progressToken === token)) {
        found.push({ tool: p.t.name, args, declared: false });
        return;
      }
    }
  });
  // In tools/list order, whatever order the probes ended in.
  const calls = probes.map((p) => found.find((f) => f.tool === p.t.name)).filter((f): f is GenericCall => f !== undefined).slice(0, STREAM_SLOTS);
  const triedText = probes.map((p) => `${p.t.name} with ${tried.get(p.t.name)?.join(', ') ?? 'nothing'}`).join('; ') || 'none';
  const skipped = listed.length - eligible.length;
  return {
    calls,
    why: `${calls.length} of the tools tried (${triedText}${skipped > 0 ? `; ${skipped} left out on a deployment, not read-only` : ''}) sent notifications/progress when called with a progress token`,
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
