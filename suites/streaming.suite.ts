import { describe } from 'vitest';
import { bootstrapWorkspace } from '../src/fresh-workspace.js';
import { check, type CheckContext } from '../src/check.js';
import { McpSession } from '../src/mcp-session.js';
import { fill, type CallRecipe } from '../src/profile.js';
import type { TargetInfo } from '../src/target-info.js';
import { WireClient, type WireResponse } from '../src/wire/client.js';
import type { Exchange } from '../src/wire/exchange.js';

/**
 * The five streaming tools (service.md §Events). One round of calls serves every check: each tool with a
 * string token, an integer token and no token, all fifteen in flight together (which is also the
 * concurrency scenario of stream-isolated). Each check reads its stream from the round and attaches that
 * exchange to its own record as evidence.
 */
const TOOLS = ['blocks.create', 'blocks.build', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview'] as const;
type Tool = (typeof TOOLS)[number];
type Variant = 'string token' | 'integer token' | 'no token';
const VARIANTS: Variant[] = ['string token', 'integer token', 'no token'];
const TOKEN_VARIANTS: Variant[] = ['string token', 'integer token'];
const MODERN = '2026-07-28';

/** After the final result, the stream must end within this long (stream-closes). */
const CLOSE_GRACE_MS = 2000;
/**
 * How long the harness reads one stream. The per-request deadline of the run, except on the embedded
 * reference server, whose streams take 4 x 40 ms: there a short one keeps a never-closing stream from
 * costing the whole deadline.
 */
function streamDeadline(target: TargetInfo): number {
  return target.kind === 'embedded' ? Math.min(target.timeoutMs, 5000) : target.timeoutMs;
}
/**
 * Buffering criterion (stream-not-buffered). A stream's window is the time between its response headers
 * and the final result. A stream is "bunched" when its first progress event arrives less than
 * BUNCHED_FRACTION of that window before the final result: a server (or proxy) that holds the stream and
 * flushes it at the end delivers every event within the same millisecond or two, whereas the reference
 * paces its events 40 ms apart (first progress about 3/4 of the window before the result). Windows shorter
 * than MIN_WINDOW_MS say nothing (an instant tool legitimately sends everything at once). One bunched
 * stream may be a harness-side stall (a busy worker reads several events at once), so a tool fails only
 * when both of its token streams and one more stream, sent alone later, are all bunched.
 */
const BUNCHED_FRACTION = 0.1;
const MIN_WINDOW_MS = 40;

interface Stream {
  tool: Tool;
  variant: Variant;
  id: string | number;
  token?: string | number;
  /** performance.now() when sent, to show the streams were in flight together. */
  sentAt: number;
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
  vars: Record<string, unknown>;
  /** An MCP session on the group's key writing into a check's own wire log. */
  session(c: CheckContext): McpSession;
  deadlineMs: number;
  keyNote: string;
}

let round: Promise<Round> | undefined;

function targetSecrets(target: TargetInfo): string[] {
  return [target.apiKey, target.otherKey, target.revokedKey].filter((k): k is string => !!k);
}

/**
 * A workspace of this group's own (bootstrap, when the target allows it), so that other suites' blocks
 * never push blocks.create into the plan's cap and their traffic never shares this key's rate bucket.
 * The exchange is recorded with the new key redacted.
 */
async function groupKey(target: TargetInfo, secrets: string[]): Promise<{ key: string | undefined; exchanges: Exchange[]; note: string }> {
  const own = await bootstrapWorkspace(target, secrets, 'streaming');
  return own.key ? { key: own.key, exchanges: own.exchanges, note: own.note } : { key: target.apiKey, exchanges: own.exchanges, note: `the target key (${own.note})` };
}

function placeholders(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!);
  if (Array.isArray(value)) return value.flatMap(placeholders);
  if (value && typeof value === 'object') return Object.values(value).flatMap(placeholders);
  return [];
}

function idAndToken(tool: Tool, variant: Variant, seed: number): { id: string | number; token?: string | number } {
  const i = TOOLS.indexOf(tool);
  // Distinct ids and tokens across all fifteen streams; integer token 0 for the first tool on purpose.
  if (variant === 'string token') return { id: `stream-${i}-${seed % 10_000}`, token: `tok-${tool}-${seed % 10_000}` };
  if (variant === 'integer token') return { id: 9000 + i, token: i * 7 };
  return { id: 9100 + i };
}

async function runRound(target: TargetInfo): Promise<Round> {
  const secrets = targetSecrets(target);
  const { key, exchanges: keyExchanges, note } = await groupKey(target, secrets);
  const info: TargetInfo = { ...target, apiKey: key };
  const sessionOn = (log: Exchange[]) => new McpSession(new WireClient(log, () => secrets, target.timeoutMs), info);
  const setup: Exchange[] = [...keyExchanges];
  const deadlineMs = streamDeadline(target);
  const vars: Record<string, unknown> = {};
  for (const recipe of target.profile.setup) await sessionOn(setup).recipe(recipe, vars, { timeoutMs: deadlineMs });
  const streams: Stream[] = [];
  for (const tool of TOOLS) {
    const recipe: CallRecipe | undefined = target.profile.streaming[tool];
    if (!recipe) continue;
    const missing = placeholders(recipe.arguments).filter((v) => vars[v] === undefined);
    for (const variant of VARIANTS) {
      streams.push({
        tool, variant, ...idAndToken(tool, variant, target.seed), sentAt: 0, exchanges: [],
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
        jsonrpc: '2.0', id: 'modern-1', method: 'tools/call',
        params: {
          name: recipe.tool, arguments: fill(recipe.arguments, vars),
          _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, progressToken: 'modern' },
        },
      }, { headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': recipe.tool }, timeoutMs: deadlineMs });
    } catch (err) {
      modern.error = (err as Error).message;
    }
  };
  await Promise.all([sendModern(), ...streams.filter((s) => !s.setupProblem).map(async (s) => {
    const recipe = target.profile.streaming[s.tool]!;
    s.sentAt = performance.now();
    try {
      s.res = await sessionOn(s.exchanges).call(recipe.tool, fill(recipe.arguments, vars) as Record<string, unknown>, {
        id: s.id, ...(s.token !== undefined && { progressToken: s.token }), timeoutMs: deadlineMs,
      });
    } catch (err) {
      s.error = (err as Error).message;
    }
  })]);
  return {
    streams, modern, setup, vars, deadlineMs, keyNote: note,
    session: (c) => sessionOn(c.http.log),
  };
}

function getRound(c: CheckContext): Promise<Round> {
  round ??= runRound(c.target);
  return round;
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

// --- reading a reply -----------------------------------------------------------------------------------

/** The JSON-RPC messages of a reply with the index of their SSE event (a JSON reply is one message). */
function messagesOf(res: WireResponse): { m: any; at: number; index: number }[] {
  if (res.events) return res.events.map((e, index) => ({ m: res.messages![index], at: e.at, index }));
  return res.json === undefined ? [] : [{ m: res.json, at: res.endAt, index: 0 }];
}

const isResponse = (m: any) => m !== null && typeof m === 'object' && !Array.isArray(m) && !('method' in m) && ('result' in m || 'error' in m);
const isProgress = (m: any) => m !== null && typeof m === 'object' && m.method === 'notifications/progress';

function progressOf(res: WireResponse) {
  return messagesOf(res).filter((x) => isProgress(x.m));
}

function firstResponse(res: WireResponse) {
  return messagesOf(res).find((x) => isResponse(x.m));
}

function describeReply(res: WireResponse): string {
  return `${res.status} ${res.mediaType || '(no content type)'}, ${res.events ? `${res.events.length} SSE events` : `${res.text.length} bytes`}`;
}

/** A toolError note for a final result that is a tool error: the recipe probably does not fit the target. */
function observeToolError(c: CheckContext, res: WireResponse): void {
  const final = firstResponse(res)?.m;
  if (final?.result?.isError === true) c.observe(`the result is a tool error (isError): ${JSON.stringify(final.result.content ?? '').slice(0, 300)}`);
}

function bunched(res: WireResponse): { informative: boolean; bunched: boolean; detail: string } {
  const progress = progressOf(res);
  const final = firstResponse(res);
  if (!final || progress.length === 0) return { informative: false, bunched: false, detail: `${progress.length} progress events, ${final ? 'a' : 'no'} final result` };
  const window = final.at - res.headersAt;
  const lead = final.at - progress[0]!.at;
  const detail = `headers at ${res.headersAt.toFixed(1)} ms, first progress at ${progress[0]!.at.toFixed(1)} ms, final result at ${final.at.toFixed(1)} ms (lead ${lead.toFixed(1)} ms of a ${window.toFixed(1)} ms window)`;
  if (window < MIN_WINDOW_MS) return { informative: false, bunched: false, detail };
  return { informative: true, bunched: lead < BUNCHED_FRACTION * window, detail };
}

describe('streaming', () => {
  for (const tool of TOOLS) {
    for (const variant of VARIANTS) {
      // "For these five tools the response `Content-Type` is `text/event-stream`." (service.md §Events 1)
      check('stream-content-type', `${tool} (${variant}): the reply is 200 text/event-stream`, async (c) => {
        const { res } = await streamOf(c, tool, variant);
        c.verify(res.status === 200, `${tool} answered ${res.status}`, 200, res.status);
        c.verify(res.mediaType === 'text/event-stream', `${tool} replied ${res.mediaType || 'without a Content-Type'}, not an SSE stream`, 'text/event-stream', res.headers['content-type'] ?? null);
      });

      // "The body ... ends with a final `result` event" (service.md §Events 2); its `id` "MUST be the same
      // as the value of the id member in the Request Object" (JSON-RPC 2.0 §5).
      check('stream-final-result-id', `${tool} (${variant}): the stream carries the JSON-RPC result with the request's id`, async (c) => {
        const { s, res } = await streamOf(c, tool, variant);
        const final = firstResponse(res);
        c.verify(final !== undefined, `no JSON-RPC response in the reply (${describeReply(res)})`, { jsonrpc: '2.0', id: s.id, result: '...' }, res.messages ?? res.text.slice(0, 500));
        const m = final!.m;
        c.verify(m.jsonrpc === '2.0', 'the response has jsonrpc "2.0"', '2.0', m.jsonrpc);
        c.verify(m.id === s.id, `the response id is ${JSON.stringify(m.id)} (${typeof m.id}), not the request's ${JSON.stringify(s.id)} (${typeof s.id})`, s.id, m.id);
        c.verify('result' in m && !('error' in m), 'the response is a result, not an error', 'result', m.error ?? m);
        observeToolError(c, res);
      });

      // "Progress notifications MUST stop after completion." (MCP progress); the body "ends with a final
      // `result` event" (service.md §Events 2): the response is the last event, and the only one.
      check('stream-nothing-after-result', `${tool} (${variant}): nothing follows the result`, async (c) => {
        const { res } = await streamOf(c, tool, variant);
        const all = messagesOf(res);
        const final = firstResponse(res);
        if (!final) c.notTestable(`the reply carries no JSON-RPC response (${describeReply(res)}): stream-final-result-id reports it`);
        const after = all.filter((x) => x.index > final!.index);
        c.verify(after.length === 0, `${after.length} event(s) after the result`, 'no event after the result', after.map((x) => x.m ?? res.events?.[x.index]?.data));
      });

      // "After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream."
      check('stream-closes', `${tool} (${variant}): the stream ends after the result`, async (c) => {
        const { res, r } = await streamOf(c, tool, variant);
        if (res.mediaType !== 'text/event-stream') c.notTestable(`the reply is not an SSE stream (${describeReply(res)}): stream-content-type reports it`);
        const final = firstResponse(res);
        c.verify(final !== undefined, `no JSON-RPC response before ${res.closed ? 'the stream ended' : `the ${r.deadlineMs} ms deadline`}`, 'a response, then the end of the stream', describeReply(res));
        if (!res.closed) {
          c.verify(false, `the stream was still open at the ${r.deadlineMs} ms deadline, ${Math.round(r.deadlineMs - final!.at)} ms after the result`, `closed within ${CLOSE_GRACE_MS} ms of the result`, 'still open');
        }
        const lag = res.endAt - final!.at;
        c.verify(lag <= CLOSE_GRACE_MS, `the stream ended ${Math.round(lag)} ms after the result`, `<= ${CLOSE_GRACE_MS} ms`, Math.round(lag));
      });
    }

    for (const variant of TOKEN_VARIANTS) {
      // "The body carries progress notifications, then ends with a final `result` event." (service.md §Events 2)
      check('stream-progress-sent', `${tool} (${variant}): progress notifications precede the result`, async (c) => {
        const { res } = await streamOf(c, tool, variant);
        const final = firstResponse(res);
        const before = progressOf(res).filter((p) => !final || p.index < final.index);
        c.verify(before.length > 0, `no notifications/progress before the result (${describeReply(res)})`, 'at least one notifications/progress', res.messages ?? res.text.slice(0, 300));
        observeToolError(c, res);
      });

      // "Progress notifications MUST only reference tokens that: Were provided in an active request" —
      // the exact token, with its JSON type: integer 7 stays 7, never "7".
      check('stream-progress-token', `${tool} (${variant}): every progress notification carries the exact token`, async (c) => {
        const { s, res } = await streamOf(c, tool, variant);
        const progress = progressOf(res);
        if (progress.length === 0) c.observe('no progress notification to examine (stream-progress-sent reports it)');
        for (const p of progress) {
          const got = p.m.params?.progressToken;
          c.verify(got === s.token, `a progress notification carries ${JSON.stringify(got)} (${typeof got}), not the request's ${JSON.stringify(s.token)} (${typeof s.token})`, s.token, got ?? null);
        }
      });

      // "The `progress` value MUST increase with each notification, even if the total is unknown."
      check('stream-progress-increasing', `${tool} (${variant}): progress strictly increases`, async (c) => {
        const { res } = await streamOf(c, tool, variant);
        const values = progressOf(res).map((p) => p.m.params?.progress);
        c.verify(values.every((v) => typeof v === 'number' && Number.isFinite(v)), 'every progress value is a number', 'numbers', values);
        for (let i = 1; i < values.length; i++) {
          c.verify(values[i] > values[i - 1], `progress went from ${values[i - 1]} to ${values[i]}`, 'strictly increasing', values);
        }
        const totals = progressOf(res).map((p) => p.m.params?.total).filter((t) => t !== undefined);
        c.verify(totals.every((t) => typeof t === 'number'), '`total`, when present, is a number', 'numbers', totals);
        c.observe(`progress values: ${JSON.stringify(values)}${totals.length ? `, total ${JSON.stringify(totals[0])}` : ''}`);
      });
    }

    // "Progress notifications MUST only reference tokens that: Were provided in an active request" — a
    // request without a progressToken provided none, so it gets no progress at all.
    check('stream-no-token-no-progress', `${tool} (no token): no progress notification`, async (c) => {
      const { res } = await streamOf(c, tool, 'no token');
      const progress = progressOf(res);
      c.verify(progress.length === 0, `${progress.length} notifications/progress without a progressToken`, 'none', progress.map((p) => p.m));
    });

    // "A client such as curl must disable output buffering to see progress as it arrives." (service.md
    // §Events 5): progress is sent while the operation runs, not held and flushed with the result.
    check('stream-not-buffered', `${tool}: progress arrives spread over time, not flushed with the result`, async (c) => {
      const first = await streamOf(c, tool, 'string token');
      const second = await streamOf(c, tool, 'integer token');
      const samples = [first.res, second.res].map(bunched);
      samples.forEach((x, i) => c.observe(`${TOKEN_VARIANTS[i]}: ${x.detail}`));
      if (samples.some((x) => x.informative && !x.bunched)) return;
      // Both looked bunched (or said nothing): one more stream, alone, before concluding.
      const recipe = c.target.profile.streaming[tool]!;
      const res = await first.r.session(c).call(recipe.tool, fill(recipe.arguments, first.r.vars) as Record<string, unknown>, { progressToken: `retry-${tool}`, timeoutMs: first.r.deadlineMs });
      const retry = bunched(res);
      c.observe(`a third stream sent alone: ${retry.detail}`);
      const informative = [...samples, retry].filter((x) => x.informative);
      if (informative.length === 0) c.notTestable(`no stream of ${tool} lasted ${MIN_WINDOW_MS} ms with progress in it: too fast to tell pacing from buffering`);
      c.verify(informative.some((x) => !x.bunched), `every stream of ${tool} delivered its progress in the last ${BUNCHED_FRACTION * 100}% of its window, together with the result`, `first progress at least ${BUNCHED_FRACTION * 100}% of the window before the result`, informative.map((x) => x.detail));
    });
  }

  // "The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it
  // MUST NOT broadcast the same message across multiple streams."
  check('stream-isolated', 'concurrent streams each carry only their own progress and result', async (c) => {
    const r = await getRound(c);
    c.http.log.push(...r.setup);
    c.observe(`streams sent with ${r.keyNote}`);
    const done = r.streams.filter((s) => s.res);
    for (const s of done) c.http.log.push(...s.exchanges);
    if (done.length < 2) c.notTestable(`fewer than two streams could be sent (${r.streams.map((s) => s.setupProblem ?? s.error).filter(Boolean).join('; ') || 'no recipes'})`);
    const latestStart = Math.max(...done.map((s) => s.sentAt));
    const earliestEnd = Math.min(...done.map((s) => s.sentAt + s.res!.endAt));
    if (latestStart >= earliestEnd) c.notTestable('the streams did not overlap in time (the target served them one after another)');
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
  });

  // "When initiating an SSE stream, servers SHOULD include the `X-Accel-Buffering: no` header in the HTTP
  // response." (2026-07-28) Sent on that revision's wire: _meta envelope and MCP-* headers.
  check('stream-x-accel-buffering', 'a 2026-07-28 streaming reply carries X-Accel-Buffering: no', async (c) => {
    const r = await getRound(c);
    const legacy = r.streams.filter((s) => s.res?.mediaType === 'text/event-stream');
    c.observe(`2025-era SSE replies with X-Accel-Buffering: no: ${legacy.filter((s) => s.res!.headers['x-accel-buffering']?.trim().toLowerCase() === 'no').length} of ${legacy.length}`);
    if (!r.modern) c.notTestable(`the profile "${c.target.profile.name}" has no usable streaming recipe`);
    const { tool, res, error, exchanges } = r.modern!;
    c.http.log.push(...exchanges);
    if (!res) throw Object.assign(new Error(`the 2026-07-28 ${tool} request failed: ${error}`), { expected: 'a reply', actual: error });
    c.verify(res.status === 200, `the 2026-07-28 ${tool} call answered ${res.status}`, 200, res.status);
    if (res.mediaType !== 'text/event-stream') c.notTestable(`the 2026-07-28 ${tool} call opened no SSE stream (${describeReply(res)})`);
    const value = res.headers['x-accel-buffering'];
    c.verify(value?.trim().toLowerCase() === 'no', `X-Accel-Buffering is ${value === undefined ? 'absent' : JSON.stringify(value)}`, 'no', value ?? null);
  });
});
