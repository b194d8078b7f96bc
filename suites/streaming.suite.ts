import type { RunState } from '../src/engine/run-state.js';
import { bootstrapWorkspace } from '../src/judging/fresh-workspace.js';
import { runSecrets, type CheckContext, defineSuite } from '../src/engine/check.js';
import { McpSession } from '../src/mcp/mcp-session.js';
import { fill, type CallRecipe } from '../src/profile/profile.js';
import type { TargetInfo } from '../src/targets/target-info.js';
import { WireClient, type WireResponse } from '../src/wire/client.js';
import type { Exchange } from '../src/wire/exchange.js';
import { jsonSnippet } from '../src/kit/text.js';
import {
  judgeEventIds, judgeEventTypes, judgeNoBom, judgeNotificationIds, judgeSseData, judgeUtf8, judgeVersionMember, type LabelledReply,
} from '../src/judging/wire-judge.js';
import {
  CLOSE_GRACE_MS, describeReply, firstResponse, isProgress, isResponse, messagesOf, progressOf, TOKEN_VARIANTS, VARIANTS, verifyEndsAfter, verifyIncreasing, verifyNoProgress,
  verifyNothingAfter, verifyResponseId, verifyTokens, type Variant,
} from '../src/mcp/stream-reading.js';

const { check, describe, seal } = defineSuite('streaming');

/**
 * The five streaming tools (service.md §Events). One round of calls serves every check: each tool with a
 * string token, an integer token and no token, all fifteen in flight together (which is also the
 * concurrency scenario of stream-isolated). Each check reads its stream from the round and attaches that
 * exchange to its own record as evidence.
 */
const TOOLS = ['blocks.create', 'blocks.build', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview'] as const;
type Tool = (typeof TOOLS)[number];
const MODERN = '2026-07-28';

/**
 * How long the harness reads one stream. The per-request deadline of the run, except on the embedded
 * reference server, whose streams take 4 x 40 ms: there a short one keeps a never-closing stream from
 * costing the whole deadline.
 */
function streamDeadline(target: TargetInfo, timeoutMs: number): number {
  return target.kind === 'embedded' ? Math.min(timeoutMs, 5000) : timeoutMs;
}
/**
 * Buffering criterion (stream-not-buffered). "A client such as curl must disable output buffering to see
 * progress as it arrives." (service.md §Events 5) and "Events are timestamped on arrival so that a server
 * that buffers the whole stream and flushes at the end is caught." (DESIGN.md, Streaming checks)
 *
 * Every time is milliseconds since the request was sent (the wire client starts its clock just before
 * undici sends), never since the response headers: a server or proxy that holds its headers too sends them
 * with the events at the end, and a window opened by the headers would then be empty. A stream's work
 * window runs from its start to the final result; its start is the earlier of its response headers and
 * the time a plain JSON reply took (a tools/list sent at the same moment, over the same network and load;
 * the moment of sending when there is none), so that connection set-up, network latency and queueing are
 * not counted as streaming work, and late headers cannot shorten the window.
 * A stream is "bunched" when its first progress event arrives in the last BUNCHED_FRACTION of the window,
 * i.e. together with the result: a buffered stream delivers everything within a millisecond or two, while
 * the reference paces its steps (4 x 40 ms in conformance runs, 4 x 75 ms by default; the first progress
 * comes about 3/4 of the window before the result, at any step length). A window shorter than
 * MIN_WINDOW_MS cannot tell pacing from buffering (a fast deployment, short steps or none), nor can a
 * stream whose single progress notification comes with the result (a one-step tool): not testable, with
 * the numbers. One bunched stream may be a harness-side stall (a busy worker reads several events at
 * once), so a tool fails only when both of its token streams and one more stream, sent alone later, are
 * all bunched. A token stream without progress or without a final result has nothing to time: that is the
 * service's doing, and fails.
 */
const BUNCHED_FRACTION = 0.1;
const MIN_WINDOW_MS = 40;

interface Stream {
  tool: Tool;
  variant: Variant;
  id: string | number;
  token?: string | number;
  /** performance.now() when handed to the wire client, to show the streams were in flight together. */
  sentAt: number;
  /** performance.now() when the reply was read; `doneAt - res.endAt` is when it actually went out. */
  doneAt?: number;
  res?: WireResponse;
  error?: string;
  /** Why this tool could not be called meaningfully (a setup variable missing). */
  setupProblem?: string;
  exchanges: Exchange[];
}

interface Round {
  streams: Stream[];
  /** The same call on the 2026-07-28 wire (stream-x-accel-buffering), when the target speaks it. */
  modern?: { tool: string; res?: WireResponse; error?: string; exchanges: Exchange[] };
  setup: Exchange[];
  /** A tools/list sent with the streams: how long a plain JSON reply takes (stream-not-buffered's baseline). */
  ping: Ping;
  vars: Record<string, unknown>;
  /** An MCP session on the group's key writing into the given wire log (a check's own). */
  session(log: Exchange[]): McpSession;
  deadlineMs: number;
  keyNote: string;
}

interface Ping { res?: WireResponse; error?: string; exchanges: Exchange[] }


/** Sends a tools/list; its reply time is the baseline of a plain JSON reply. */
async function sendPing(session: McpSession, ping: Ping, timeoutMs: number): Promise<void> {
  try {
    ping.res = await session.request('tools/list', undefined, { timeoutMs });
  } catch (err) {
    ping.error = (err as Error).message;
  }
}

/**
 * A workspace of this group's own (bootstrap, when the target allows it), so that other suites' blocks
 * never push blocks.create into the plan's cap and their traffic never shares this key's rate bucket.
 * The exchange is recorded with the new key redacted.
 */
async function groupKey(run: RunState, target: TargetInfo, secrets: string[]): Promise<{ key: string | undefined; exchanges: Exchange[]; note: string }> {
  const own = await bootstrapWorkspace(run, target, secrets, 'streaming');
  return own.key ? { key: own.key, exchanges: own.exchanges, note: own.note } : { key: target.apiKey, exchanges: own.exchanges, note: `the target key (${own.note})` };
}

function placeholders(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!);
  if (Array.isArray(value)) return value.flatMap(placeholders);
  if (value && typeof value === 'object') return Object.values(value).flatMap(placeholders);
  return [];
}

function idAndToken(run: RunState, tool: Tool, variant: Variant, seed: number): { id: string | number; token?: string | number } {
  const i = TOOLS.indexOf(tool);
  // Ids from the run's id space (src/wire/request-ids.ts); distinct tokens across all fifteen streams, integer
  // token 0 for the first tool on purpose.
  if (variant === 'string token') return { id: run.ids.named('stream'), token: `tok-${tool}-${seed % 10_000}` };
  if (variant === 'integer token') return { id: run.ids.next(), token: i * 7 };
  return { id: run.ids.next() };
}

async function runRound(run: RunState, target: TargetInfo): Promise<Round> {
  const secrets = runSecrets(target);
  const { key, exchanges: keyExchanges, note } = await groupKey(run, target, secrets);
  const info: TargetInfo = { ...target, apiKey: key };
  const sessionOn = (log: Exchange[]) => new McpSession(new WireClient(log, () => secrets, { run }), info);
  const setup: Exchange[] = [...keyExchanges];
  const deadlineMs = streamDeadline(target, run.settings.timeoutMs);
  const vars: Record<string, unknown> = {};
  for (const recipe of target.profile.setup) await sessionOn(setup).recipe(recipe, vars, { timeoutMs: deadlineMs });
  const streams: Stream[] = [];
  for (const tool of TOOLS) {
    const recipe: CallRecipe | undefined = target.profile.streaming[tool];
    if (!recipe) continue;
    const missing = placeholders(recipe.arguments).filter((v) => vars[v] === undefined);
    for (const variant of VARIANTS) {
      streams.push({
        tool, variant, ...idAndToken(run, tool, variant, run.settings.seed), sentAt: 0, exchanges: [],
        ...(missing.length > 0 && { setupProblem: `the profile's setup did not capture ${missing.map((m) => `{{${m}}}`).join(', ')} needed by the ${tool} recipe (see the setup exchanges)` }),
      });
    }
  }
  const modernTool = [...TOOLS].reverse().find((t) => target.profile.streaming[t] && !streams.find((s) => s.tool === t)?.setupProblem);
  const modern: Round['modern'] = target.revisions.includes(MODERN) && modernTool ? { tool: modernTool, exchanges: [] } : undefined;
  const sendModern = async () => {
    if (!modern) return;
    const recipe = target.profile.streaming[modern.tool]!;
    try {
      modern.res = await sessionOn(modern.exchanges).post({
        jsonrpc: '2.0', id: run.ids.named('modern'), method: 'tools/call',
        params: {
          name: recipe.tool, arguments: fill(recipe.arguments, vars),
          _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, progressToken: 'modern' },
        },
      }, { headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': recipe.tool }, timeoutMs: deadlineMs });
    } catch (err) {
      modern.error = (err as Error).message;
    }
  };
  const ping: Ping = { exchanges: [] };
  const sending = streams.filter((s) => !s.setupProblem);
  await Promise.all([sendModern(), ...(sending.length > 0 ? [sendPing(sessionOn(ping.exchanges), ping, deadlineMs)] : []), ...sending.map(async (s) => {
    const recipe = target.profile.streaming[s.tool]!;
    s.sentAt = performance.now();
    try {
      s.res = await sessionOn(s.exchanges).call(recipe.tool, fill(recipe.arguments, vars) as Record<string, unknown>, {
        // Read on past the result for stream-closes and stream-nothing-after-result, within their bound.
        id: s.id, ...(s.token !== undefined && { progressToken: s.token }), timeoutMs: deadlineMs, afterResponseMs: CLOSE_GRACE_MS,
      });
      s.doneAt = performance.now();
    } catch (err) {
      s.error = (err as Error).message;
    }
  })]);
  return {
    streams, modern, setup, ping, vars, deadlineMs, keyNote: note,
    session: sessionOn,
  };
}

function getRound(c: CheckContext): Promise<Round> {
  return c.run.once('streaming round', () => runRound(c.run, c.target));
}

/** The stream of one tool and variant, its exchange attached to the check; not testable without a recipe. */
async function streamOf(c: CheckContext, tool: Tool, variant: Variant): Promise<{ s: Stream; res: WireResponse; r: Round }> {
  if (!c.target.profile.streaming[tool]) c.notTestable(c.target.profile.gaps?.[tool] ?? `the profile "${c.target.profile.name}" has no streaming recipe for ${tool}`);
  const r = await getRound(c);
  const s = r.streams.find((x) => x.tool === tool && x.variant === variant)!;
  c.http.log.push(...s.exchanges);
  if (s.setupProblem) {
    c.http.log.push(...r.setup);
    throw Object.assign(new Error(s.setupProblem), { expected: 'setup captures every recipe variable', actual: r.vars });
  }
  if (!s.res) throw Object.assign(new Error(`the ${tool} request failed: ${s.error}`), { expected: 'a reply', actual: s.error });
  return { s, res: s.res, r };
}

/** A toolError note for a final result that is a tool error: the recipe probably does not fit the target. */
function observeToolError(c: CheckContext, res: WireResponse): void {
  const final = firstResponse(res)?.m;
  if (final?.result?.isError === true) c.observe(`the result is a tool error (isError): ${jsonSnippet(final.result.content ?? '')}`);
}

type Timing = 'missing' | 'too short' | 'single' | 'bunched' | 'paced';

/** How one stream's progress arrived (the criterion above); `baselineMs` is a plain JSON reply's time, if any. */
function timing(res: WireResponse, baselineMs: number | undefined): { verdict: Timing; detail: string; headersLate: boolean } {
  const progress = progressOf(res);
  const final = firstResponse(res);
  if (!final || progress.length === 0) {
    return { verdict: 'missing', headersLate: false, detail: `${progress.length} progress notifications and ${final ? 'a' : 'no'} final result (${describeReply(res)}): nothing to time` };
  }
  const start = Math.min(res.headersAt, baselineMs ?? 0);
  const window = final.at - start;
  const lead = final.at - progress[0]!.at;
  const headersLate = res.headersAt > final.at - BUNCHED_FRACTION * window;
  const detail = `from send: headers at ${res.headersAt.toFixed(1)} ms, first progress at ${progress[0]!.at.toFixed(1)} ms, final result at ${final.at.toFixed(1)} ms; `
    + `${baselineMs === undefined ? 'no plain JSON reply to compare' : `a plain JSON reply took ${baselineMs.toFixed(1)} ms`}: `
    + `first progress ${lead.toFixed(1)} ms before the result in a ${window.toFixed(1)} ms window`;
  if (window < MIN_WINDOW_MS) return { verdict: 'too short', headersLate, detail };
  if (lead >= BUNCHED_FRACTION * window) return { verdict: 'paced', headersLate, detail };
  // One notification sent as the work completes (a one-step tool) arrives with the result however the
  // stream is sent: there is no pacing between events to measure.
  return { verdict: progress.length === 1 ? 'single' : 'bunched', headersLate, detail: progress.length === 1 ? `${detail} (its only progress notification)` : detail };
}

/**
 * The round's replies for the wire rows (src/catalog/wire.ts, judged by src/judging/wire-judge.ts): every stream of the
 * fifteen, the 2026-07-28 call and the tools/list sent with them. No recipe is the profile's limit; recipes
 * that could not be sent, or no reply at all, are the service's doing.
 */
async function wireReplies(c: CheckContext, options: { modern: boolean } = { modern: true }): Promise<{ r: Round; replies: LabelledReply[] }> {
  if (!TOOLS.some((t) => c.target.profile.streaming[t])) c.notTestable(`the profile "${c.target.profile.name}" has no streaming recipe`);
  const r = await getRound(c);
  const replies: LabelledReply[] = r.streams.filter((s) => s.res).map((s) => ({ label: `${s.tool} (${s.variant})`, res: s.res!, exchanges: s.exchanges }));
  if (options.modern && r.modern?.res) replies.push({ label: `${r.modern.tool} (2026-07-28)`, res: r.modern.res, exchanges: r.modern.exchanges });
  const missing = r.streams.filter((s) => !s.res);
  if (missing.length > 0) c.observe(`${missing.length} of ${r.streams.length} streams not judged: ${missing.slice(0, 3).map((s) => `${s.tool} (${s.variant}): ${s.setupProblem ?? s.error}`).join('; ')}`);
  if (replies.length === 0) {
    c.http.log.push(...r.setup);
    c.verify(false, `no streaming call got a reply to judge (${missing.slice(0, 3).map((s) => s.setupProblem ?? s.error).join('; ')})`, 'replies of the streaming tools', missing.length);
  }
  if (r.ping.res) replies.push({ label: 'tools/list (sent with the streams)', res: r.ping.res, exchanges: r.ping.exchanges });
  return { r, replies };
}

/** The event streams among them; none at all is the service's failure (stream-content-type names each). */
function wireStreams(c: CheckContext, replies: LabelledReply[]): LabelledReply[] {
  const sse = replies.filter((x) => x.res.events);
  c.verify(sse.length > 0, `no streaming tool replied with an event stream (${replies.slice(0, 3).map((x) => `${x.label}: ${x.res.status} ${x.res.mediaType || 'no content type'}`).join('; ')})`, 'text/event-stream', replies.map((x) => x.res.mediaType).slice(0, 5));
  return sse;
}

describe('streaming', () => {
  for (const tool of TOOLS) {
    for (const variant of VARIANTS) {
      // "For these five tools the response `Content-Type` is `text/event-stream`." (service.md §Events 1)
      check({ ids: 'stream-content-type', name: `${tool} (${variant}): the reply is 200 text/event-stream`, run: async (c) => {
        const { res } = await streamOf(c, tool, variant);
        c.verify(res.status === 200, `${tool} answered ${res.status}`, 200, res.status);
        c.verify(res.mediaType === 'text/event-stream', `${tool} replied ${res.mediaType || 'without a Content-Type'}, not an SSE stream`, 'text/event-stream', res.headers['content-type'] ?? null);
      } });

      // "The body ... ends with a final `result` event" (service.md §Events 2); its `id` "MUST be the same
      // as the value of the id member in the Request Object" (JSON-RPC 2.0 §5).
      check({ ids: 'stream-final-result-id', name: `${tool} (${variant}): the stream carries the JSON-RPC result with the request's id`, run: async (c) => {
        const { s, res } = await streamOf(c, tool, variant);
        const m = verifyResponseId(c, res, s.id);
        c.verify('result' in m && !('error' in m), 'the response is a result, not an error', 'result', m.error ?? m);
      } });

      // "The body carries progress notifications, then ends with a final `result` event." (service.md
      // §Events 2) A result with `isError: true` is a failed call: "Tool Execution Errors: Reported in tool
      // results with `isError: true`" (MCP 2025-11-25 server/tools, Error Handling). A recipe is a call that
      // works, so its stream ends in a successful result, unless the profile declares it meant to fail.
      check({ ids: 'stream-final-result-ok', name: `${tool} (${variant}): the final result is not a tool error`, run: async (c) => {
        const { s, res } = await streamOf(c, tool, variant);
        const final = firstResponse(res);
        c.verify(final !== undefined, `no final result in the reply (${describeReply(res)})`, 'a final result', res.messages ?? res.text.slice(0, 500));
        const m = final!.m;
        c.verify('result' in m && m.result !== null && typeof m.result === 'object', `the call ended in ${'error' in m ? `a JSON-RPC error ${jsonSnippet(m.error)}` : 'no result object'}, not a result`, 'a result object', m);
        const text = jsonSnippet(m.result.content ?? '');
        if (c.target.profile.streaming[tool]!.expectError) {
          c.observe(`the profile declares this call meant to fail (expectError); its result ${m.result.isError === true ? `is a tool error: ${text}` : 'is not a tool error'}`);
          return;
        }
        c.verify(m.result.isError !== true, `the final result of ${tool} (request id ${JSON.stringify(s.id)}) is a tool error (isError: true): ${text}; the profile's recipe does not declare the call meant to fail (expectError)`, 'a result without isError: true', m.result);
      } });

      // "Progress notifications MUST stop after completion." (MCP progress); the body "ends with a final
      // `result` event" (service.md §Events 2): the response is the last event, and the only one.
      check({ ids: 'stream-nothing-after-result', name: `${tool} (${variant}): nothing follows the result`, run: async (c) => {
        const { res } = await streamOf(c, tool, variant);
        const final = firstResponse(res);
        // No result to look after is the service's doing (stream-final-result-id reports it too).
        c.verify(final !== undefined, `the reply carries no JSON-RPC response, so nothing marks the end of the progress (${describeReply(res)})`, 'a final result, and nothing after it', res.messages ?? res.text.slice(0, 500));
        verifyNothingAfter(c, res, final!);
      } });

      // "After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream."
      check({ ids: 'stream-closes', name: `${tool} (${variant}): the stream ends after the result`, run: async (c) => {
        const { res, r } = await streamOf(c, tool, variant);
        // A reply that is no stream has no stream to end: the service's doing (stream-content-type reports it too).
        c.verify(res.mediaType === 'text/event-stream', `the reply is not an SSE stream (${describeReply(res)})`, 'text/event-stream', res.mediaType || null);
        const final = firstResponse(res);
        c.verify(final !== undefined, `no JSON-RPC response before ${res.closed ? 'the stream ended' : `the ${r.deadlineMs} ms deadline`}`, 'a response, then the end of the stream', describeReply(res));
        verifyEndsAfter(c, res, final!, r.deadlineMs);
      } });
    }

    for (const variant of TOKEN_VARIANTS) {
      // "The body carries progress notifications, then ends with a final `result` event." (service.md §Events 2)
      check({ ids: 'stream-progress-sent', name: `${tool} (${variant}): progress notifications precede the result`, run: async (c) => {
        const { res } = await streamOf(c, tool, variant);
        const final = firstResponse(res);
        const before = progressOf(res).filter((p) => !final || p.index < final.index);
        c.verify(before.length > 0, `no notifications/progress before the result (${describeReply(res)})`, 'at least one notifications/progress', res.messages ?? res.text.slice(0, 300));
        observeToolError(c, res);
      } });

      // "Progress notifications MUST only reference tokens that: Were provided in an active request" —
      // the exact token, with its JSON type: integer 7 stays 7, never "7".
      check({ ids: 'stream-progress-token', name: `${tool} (${variant}): every progress notification carries the exact token`, run: async (c) => {
        const { s, res } = await streamOf(c, tool, variant);
        const progress = progressOf(res);
        // "The body carries progress notifications" (service.md §Events 2): none at all leaves no token to check.
        c.verify(progress.length > 0, `the stream sent with progress token ${JSON.stringify(s.token)} carries no progress notification (${describeReply(res)})`, 'at least one notifications/progress', res.messages ?? res.text.slice(0, 300));
        verifyTokens(c, progressOf(res).map((p) => p.m), s.token);
      } });

      // "The `progress` value MUST increase with each notification, even if the total is unknown."
      check({ ids: 'stream-progress-increasing', name: `${tool} (${variant}): progress strictly increases`, run: async (c) => {
        const { s, res } = await streamOf(c, tool, variant);
        // "The body carries progress notifications" (service.md §Events 2): none at all has no progress to rise.
        c.verify(progressOf(res).length > 0, `the stream sent with progress token ${JSON.stringify(s.token)} carries no progress notification (${describeReply(res)})`, 'at least one notifications/progress', res.messages ?? res.text.slice(0, 300));
        const values = verifyIncreasing(c, progressOf(res).map((p) => p.m));
        const totals = progressOf(res).map((p) => p.m.params?.total).filter((t) => t !== undefined);
        c.verify(totals.every((t) => typeof t === 'number'), '`total`, when present, is a number', 'numbers', totals);
        c.observe(`progress values: ${JSON.stringify(values)}${totals.length ? `, total ${JSON.stringify(totals[0])}` : ''}`);
      } });
    }

    // "Progress notifications MUST only reference tokens that: Were provided in an active request" — a
    // request without a progressToken provided none, so it gets no progress at all.
    check({ ids: 'stream-no-token-no-progress', name: `${tool} (no token): no progress notification`, run: async (c) => {
      const { res } = await streamOf(c, tool, 'no token');
      verifyNoProgress(c, res);
    } });

    // "A client such as curl must disable output buffering to see progress as it arrives." (service.md
    // §Events 5): progress is sent while the operation runs, not held and flushed with the result. The
    // sentence binds the client and only presupposes the service's pacing, so the row is INFO: a buffered
    // stream is noted, never the run's failure. The rule, timed from the moment each request was sent, is
    // documented above BUNCHED_FRACTION.
    check({ ids: 'stream-not-buffered', name: `${tool}: progress arrives spread over time, not flushed with the result`, run: async (c) => {
      const first = await streamOf(c, tool, 'string token');
      const second = await streamOf(c, tool, 'integer token');
      const r = first.r;
      c.http.log.push(...r.ping.exchanges);
      const baseline = r.ping.res?.endAt;
      if (baseline === undefined) c.observe(`the tools/list sent with the streams got no reply (${r.ping.error ?? 'none sent'}): windows open at the moment of sending`);
      const samples = [first.res, second.res].map((res) => timing(res, baseline));
      samples.forEach((x, i) => c.observe(`${TOKEN_VARIANTS[i]}: ${x.detail}`));
      // A stream sent with a progress token that carries no progress, or no result, is the service's doing.
      const missing = samples.findIndex((x) => x.verdict === 'missing');
      if (missing >= 0) {
        c.verify(false, `the ${tool} stream sent with a progress token (${TOKEN_VARIANTS[missing]}) carries ${samples[missing]!.detail}: the service sends no progress whose arrival could be timed`, 'progress notifications, then the result', samples[missing]!.detail);
      }
      if (samples.some((x) => x.verdict === 'paced')) return;
      // Both looked bunched (or too short to say): one more stream, alone, with its own baseline, before concluding.
      const recipe = c.target.profile.streaming[tool]!;
      const ping: Ping = { exchanges: [] };
      const [res] = await Promise.all([
        r.session(c.http.log).call(recipe.tool, fill(recipe.arguments, r.vars) as Record<string, unknown>, { progressToken: `retry-${tool}`, timeoutMs: r.deadlineMs }),
        sendPing(r.session(ping.exchanges), ping, r.deadlineMs),
      ]);
      c.http.log.push(...ping.exchanges);
      const retry = timing(res, ping.res?.endAt);
      c.observe(`a third stream sent alone: ${retry.detail}`);
      c.verify(retry.verdict !== 'missing', `the third ${tool} stream (sent alone with a progress token) carries ${retry.detail}`, 'progress notifications, then the result', retry.detail);
      const informative = [...samples, retry].filter((x) => x.verdict === 'bunched' || x.verdict === 'paced');
      if (informative.length === 0) {
        c.notTestable(`no stream of ${tool} could tell pacing from buffering: each had a window under ${MIN_WINDOW_MS} ms from its start (headers, or a plain JSON reply's time) to the result, or a single progress notification sent with the result (${[...samples, retry].map((x) => x.detail).join('; ')})`);
      }
      const late = informative.every((x) => x.headersLate);
      c.verify(informative.some((x) => x.verdict === 'paced'),
        `every stream of ${tool} delivered its first progress in the last ${BUNCHED_FRACTION * 100}% of its window, together with the result${late ? ' (the response headers were held until then too)' : ''}: the stream is buffered, not sent as it progresses`,
        `first progress at least ${BUNCHED_FRACTION * 100}% of the window before the result`, informative.map((x) => x.detail));
    } });
  }

  // "The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it
  // MUST NOT broadcast the same message across multiple streams."
  check({ ids: 'stream-isolated', name: 'concurrent streams each carry only their own progress and result', run: async (c) => {
    const r = await getRound(c);
    c.http.log.push(...r.setup);
    c.observe(`streams sent with ${r.keyNote}`);
    const done = r.streams.filter((s) => s.res);
    for (const s of r.streams) c.http.log.push(...s.exchanges);
    // Too few recipes is the profile's (the user's) limit; recipes whose calls got no reply are the service's.
    const recipes = new Set(r.streams.map((s) => s.tool)).size;
    if (r.streams.length < 2) c.notTestable(`the profile "${c.target.profile.name}" has streaming recipes for ${recipes} tool(s): fewer than two streams to send`);
    c.verify(done.length >= 2, `only ${done.length} of ${r.streams.length} streams got a reply (${r.streams.map((s) => s.setupProblem ?? s.error).filter(Boolean).join('; ')})`, 'at least two concurrent streams', done.length);
    // When each request actually went out (after any pacing) and when its reply was read.
    const latestStart = Math.max(...done.map((s) => s.doneAt! - s.res!.endAt));
    const earliestEnd = Math.min(...done.map((s) => s.doneAt!));
    c.verify(latestStart < earliestEnd, `the target served the ${done.length} concurrent streams one after another: no two were in flight together, so none could carry another's messages`, 'streams in flight together', `the last went out ${Math.round(latestStart - earliestEnd)} ms after the first finished`);
    c.observe(`${done.length} streams in flight together for ${Math.round(earliestEnd - latestStart)} ms`);
    for (const s of done) {
      const others = done.filter((o) => o !== s);
      const foreignTokens = new Set(others.map((o) => o.token).filter((t) => t !== undefined));
      const foreignIds = new Set(others.map((o) => o.id));
      for (const { m } of messagesOf(s.res!)) {
        if (isProgress(m) && foreignTokens.has(m.params?.progressToken)) {
          c.verify(false, `the ${s.tool} (${s.variant}) stream carries progress of another stream (token ${JSON.stringify(m.params.progressToken)})`, `only token ${JSON.stringify(s.token ?? null)}`, m);
        }
        if (isResponse(m) && foreignIds.has(m.id)) {
          c.verify(false, `the ${s.tool} (${s.variant}) stream carries the response to another stream's request (id ${JSON.stringify(m.id)})`, `only id ${JSON.stringify(s.id)}`, m);
        }
      }
    }
  } });

  // The wire rows on the streams themselves (their sentences: src/catalog/wire.ts). "JSON-RPC messages MUST be
  // UTF-8 encoded."
  check({ ids: 'wire-utf8', name: 'the streaming tools\' replies are UTF-8', run: async (c) => {
    const { r, replies } = await wireReplies(c);
    judgeUtf8(c, replies, r.setup);
  } });

  // "Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted JSON
  // text." (RFC 8259 §8.1): no event's data; one BOM before a stream's first event is the SSE grammar's.
  check({ ids: 'wire-json-no-bom', name: 'no event\'s data in the streaming tools\' streams begins with a byte order mark', run: async (c) => {
    const { r, replies } = await wireReplies(c);
    judgeNoBom(c, replies, r.setup);
  } });

  // "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."
  check({ ids: 'wire-sse-data-jsonrpc', name: 'the data of every event of the streaming tools\' streams is one JSON-RPC message', run: async (c) => {
    const { replies } = await wireReplies(c);
    judgeSseData(c, wireStreams(c, replies));
  } });

  // "Notifications MUST NOT include an ID." (the progress notifications of the streams)
  check({ ids: 'wire-notification-no-id', name: 'no progress notification of the streaming tools carries an id', run: async (c) => {
    const { replies } = await wireReplies(c);
    judgeNotificationIds(c, replies);
  } });

  // WHATWG: an event typed other than "message" never reaches a client's message handler.
  check({ ids: 'wire-sse-event-type', name: 'every event of the streaming tools\' streams is of type message (or has no event field)', run: async (c) => {
    const { replies } = await wireReplies(c);
    judgeEventTypes(c, wireStreams(c, replies));
  } });

  // "jsonrpc: ... MUST be exactly "2.0"." (every progress notification and final result inside the streams)
  check({ ids: 'jsonrpc-version-member', name: 'every message inside the streaming tools\' streams says "jsonrpc": "2.0"', run: async (c) => {
    const { replies } = await wireReplies(c);
    judgeVersionMember(c, replies);
  } });

  // "If present, the ID MUST be globally unique across all streams within that session—or all streams with that
  // specific client, if session management is not in use." The fifteen streams are all of one key; the
  // 2026-07-28 call is left out (that revision removed resumable streams).
  check({ ids: 'wire-sse-event-id-unique', name: 'SSE event ids, where present, are unique across the fifteen streams of one key', run: async (c) => {
    if (c.revision === MODERN) c.notApplicable('the target speaks only 2026-07-28, which has no resumable streams and so no rule on event ids');
    const { replies } = await wireReplies(c, { modern: false });
    judgeEventIds(c, wireStreams(c, replies));
  } });

  // "When initiating an SSE stream, servers SHOULD include the `X-Accel-Buffering: no` header in the HTTP
  // response." (2026-07-28) Sent on that revision's wire: _meta envelope and MCP-* headers.
  check({ ids: 'stream-x-accel-buffering', name: 'a 2026-07-28 streaming reply carries X-Accel-Buffering: no', run: async (c) => {
    const r = await getRound(c);
    const legacy = r.streams.filter((s) => s.res?.mediaType === 'text/event-stream');
    c.observe(`2025-era SSE replies with X-Accel-Buffering: no: ${legacy.filter((s) => s.res!.headers['x-accel-buffering']?.trim().toLowerCase() === 'no').length} of ${legacy.length}`);
    if (!r.modern) {
      // No recipe is the profile's limit; recipes whose setup the service did not complete are the service's.
      if (!TOOLS.some((t) => c.target.profile.streaming[t])) c.notTestable(`the profile "${c.target.profile.name}" has no streaming recipe`);
      c.http.log.push(...r.setup);
      c.verify(false, `no streaming recipe could be called: ${[...new Set(r.streams.map((s) => s.setupProblem).filter(Boolean))].join('; ')}`, 'setup captures every recipe variable', r.vars);
    }
    const { tool, res, error, exchanges } = r.modern!;
    c.http.log.push(...exchanges);
    if (!res) throw Object.assign(new Error(`the 2026-07-28 ${tool} request failed: ${error}`), { expected: 'a reply', actual: error });
    c.verify(res.status === 200, `the 2026-07-28 ${tool} call answered ${res.status}`, 200, res.status);
    // No SSE stream means no stream header to look at: the service's doing (stream-content-type reports it too).
    c.verify(res.mediaType === 'text/event-stream', `the 2026-07-28 ${tool} call opened no SSE stream (${describeReply(res)})`, 'text/event-stream', res.mediaType || null);
    const value = res.headers['x-accel-buffering'];
    c.verify(value?.trim().toLowerCase() === 'no', `X-Accel-Buffering is ${value === undefined ? 'absent' : JSON.stringify(value)}`, 'no', value ?? null);
  } });
});

export default seal();
