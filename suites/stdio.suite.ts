import type { RunSettings } from '../src/engine/run-settings.js';
import { isDeepStrictEqual } from 'node:util';
import { type CheckContext, defineSuite } from '../src/engine/check.js';
import { captured, finalMessage } from '../src/mcp/mcp-session.js';
import { fill, type CallRecipe } from '../src/profile/profile.js';
import type { TargetInfo } from '../src/targets/target-info.js';
import { StdioProcess } from '../src/targets/stdio.js';
import { isObject } from '../src/mcp/tool-result.js';
import { followPages, listed, MAX_LIST_PAGES } from '../src/wire/list-pages.js';

const { check, describe, seal } = defineSuite('stdio');

/**
 * The stdio proxy, as its stdio client sees it (`--target stdio`). Two conversations are held with the
 * command, each started once and shared by the checks that read it:
 * - the main one: initialize, tools/list (every page), then at once: notifications/initialized, two concurrent calls of a
 *   streaming tool with progress tokens (a string and an integer id), ping with id 0, an unknown tool, and a
 *   third streaming call cancelled right away; stdin is closed when every reply is in, and the exit timed;
 * - the bad-line one: initialize, a line of invalid JSON, then tools/list.
 * A failing check carries the transcript of its conversation (keys redacted) as an observation.
 */

const NOT_STDIO = 'the stdio proxy is tested with --target stdio (optionally --stdio-command for another command than the repository\'s proxy)';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** Closing stdin: "servers SHOULD exit promptly", measured against this. */
const EXIT_GRACE_MS = 5_000;
const TIMEOUT = 60_000;

interface Conversation {
  proc: StdioProcess;
  /** Requests sent that must get exactly one reply each. */
  answered: (string | number)[];
  /** Every request id sent, including the cancelled one. */
  sent: (string | number)[];
  initialize?: any;
  protocolVersion?: string;
  /** The tools/list replies, page by page (following nextCursor, bounded): the first always, then while pages carry a cursor. */
  toolPages: any[];
  /** A nextCursor was still there after MAX_LIST_PAGES pages. */
  toolsEndless?: boolean;
  /** The streaming calls (ids) and the cancelled one; absent when the profile has no streaming recipe. */
  streaming?: { tool: string; ids: (string | number)[]; tokens: (string | number)[]; cancelled: string };
}

function spec(c: CheckContext): NonNullable<TargetInfo['stdio']> {
  if (c.target.kind !== 'stdio' || !c.target.stdio) c.notApplicable(NOT_STDIO);
  return c.target.stdio;
}

function initializeParams(target: TargetInfo, protocol: RunSettings['protocol']) {
  const protocolVersion = protocol !== 'auto' && LEGACY.includes(protocol) ? protocol : LEGACY.find((r) => target.revisions.includes(r as never)) ?? '2025-11-25';
  return { protocolVersion, capabilities: {}, clientInfo: { name: 'mcp-conformance-harness', version: '0.1.0' } };
}

/** A streaming recipe needing no setup (a read-only tool preferred), else the first one with the setup done over stdio. */
async function streamingRecipe(c: CheckContext, proc: StdioProcess, readOnly: Set<string>): Promise<CallRecipe | undefined> {
  const recipes = Object.values(c.target.profile.streaming);
  const plain = recipes.filter((r) => !JSON.stringify(r.arguments).includes('{{'));
  const pick = plain.find((r) => readOnly.has(r.tool)) ?? plain[0];
  if (pick || recipes.length === 0) return pick;
  const vars: Record<string, unknown> = {};
  for (const [i, recipe] of c.target.profile.setup.entries()) {
    const id = `setup-${i}`;
    proc.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: recipe.tool, arguments: fill(recipe.arguments, vars) } });
    const reply = await proc.response(id, c.settings.timeoutMs);
    for (const [name, how] of Object.entries(recipe.capture ?? {})) vars[name] = captured(reply?.result, how);
  }
  return { ...recipes[0]!, arguments: fill(recipes[0]!.arguments, vars) as Record<string, unknown> };
}

async function holdMainConversation(c: CheckContext): Promise<Conversation> {
  const proc = new StdioProcess(spec(c), c.secrets());
  const conv: Conversation = { proc, answered: [], sent: [], toolPages: [] };
  const request = (id: string | number, method: string, params?: Record<string, unknown>, answered = true) => {
    conv.sent.push(id);
    if (answered) conv.answered.push(id);
    proc.send({ jsonrpc: '2.0', id, method, ...(params && { params }) });
  };
  const deadline = c.settings.timeoutMs;
  request(1, 'initialize', initializeParams(c.target, c.settings.protocol));
  conv.initialize = await proc.response(1, deadline);
  conv.protocolVersion = conv.initialize?.result?.protocolVersion;
  // Every page: the read-only tools may be listed past the first.
  const pages = await followPages(async (cursor, index) => {
    const id = `list-${index + 1}`;
    request(id, 'tools/list', cursor === undefined ? undefined : { cursor });
    const reply = await proc.response(id, deadline);
    conv.toolPages.push(reply);
    // A page without a result ends the list here; stdio-forwards-results says so.
    return isObject(reply?.result) ? reply.result : {};
  });
  conv.toolsEndless = pages.endless;
  const tools = listed(pages);
  const recipe = await streamingRecipe(c, proc, new Set(tools.filter((t) => t?.annotations?.readOnlyHint === true).map((t) => t.name)));

  proc.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  if (recipe) {
    conv.streaming = { tool: recipe.tool, ids: ['stream-s', 42], tokens: ['tok-s', 42], cancelled: 'cancel-me' };
    request('stream-s', 'tools/call', { name: recipe.tool, arguments: recipe.arguments, _meta: { progressToken: 'tok-s' } });
    request(42, 'tools/call', { name: recipe.tool, arguments: recipe.arguments, _meta: { progressToken: 42 } });
  }
  request(0, 'ping');
  request('nope', 'tools/call', { name: '__no_such_tool__', arguments: {} });
  if (recipe) {
    request('cancel-me', 'tools/call', { name: recipe.tool, arguments: recipe.arguments, _meta: { progressToken: 'tok-c' } }, false);
    proc.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'cancel-me', reason: 'conformance check: cancelled at once' } });
  }
  await proc.until(() => conv.answered.every((id) => proc.responsesTo(id).length > 0), deadline);
  await proc.finish(EXIT_GRACE_MS);
  return conv;
}

async function holdBadLineConversation(c: CheckContext): Promise<Conversation> {
  const proc = new StdioProcess(spec(c), c.secrets());
  const conv: Conversation = { proc, answered: [1, 'after-bad'], sent: [1, 'after-bad'], toolPages: [] };
  proc.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams(c.target, c.settings.protocol) });
  conv.initialize = await proc.response(1, c.settings.timeoutMs);
  proc.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  proc.write('{this is not json');
  proc.send({ jsonrpc: '2.0', id: 'after-bad', method: 'tools/list' });
  await proc.response('after-bad', c.settings.timeoutMs);
  await proc.finish(EXIT_GRACE_MS);
  return conv;
}

// Started by the first check that needs them, both at once; the checks of this file then read the results.
function held(c: CheckContext) {
  spec(c);
  return c.run.once('stdio conversations', () => ({ main: holdMainConversation(c), badLine: holdBadLineConversation(c) }));
}

/** Runs `verify` on a conversation; on failure the transcript goes into the record as evidence. */
async function reading(c: CheckContext, which: 'main' | 'badLine', verify: (conv: Conversation) => void | Promise<void>): Promise<void> {
  const conv = await held(c)[which];
  try {
    await verify(conv);
  } catch (err) {
    c.observe(`stdio transcript (${which === 'main' ? 'main conversation' : 'bad-line conversation'}; > stdin, < stdout; keys redacted):\n${conv.proc.transcript()}`);
    throw err;
  }
}

const isResponse = (v: unknown): v is Record<string, any> => isObject(v) && ('result' in v || 'error' in v);

function isJsonRpcMessage(v: unknown): boolean {
  if (!isObject(v) || v.jsonrpc !== '2.0') return false;
  if (typeof v.method === 'string') return !('result' in v) && !('error' in v);
  return 'id' in v && ('result' in v) !== ('error' in v);
}

const short = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

describe('stdio proxy', () => {
  // "The server MUST respond with its own capabilities and information."
  check({ ids: 'stdio-initialize', name: 'initialize over stdio is answered with protocolVersion, capabilities and serverInfo', timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'main', ({ initialize }) => {
    c.verify(initialize !== undefined, 'initialize (id 1) gets a reply line', 'a response with id 1', undefined);
    const r = initialize.result;
    c.verify(isObject(r), 'the reply is a result', 'result', initialize.error ?? initialize);
    c.verify(typeof r.protocolVersion === 'string' && isObject(r.capabilities) && isObject(r.serverInfo)
      && typeof r.serverInfo.name === 'string' && typeof r.serverInfo.version === 'string',
      'the InitializeResult has protocolVersion, capabilities and serverInfo {name, version}', { protocolVersion: 'string', capabilities: {}, serverInfo: { name: 'string', version: 'string' } }, r);
    c.observe(`initialize over stdio: protocolVersion ${r.protocolVersion}, server ${r.serverInfo.name} ${r.serverInfo.version}`);
  }) });

  // "The stdio proxy forwards only the final result to its stdio client; intermediate progress is not bridged."
  check({ ids: 'stdio-final-result-only', name: 'a streaming call with a progress token yields one stdout line: its final result', timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'main', ({ proc, streaming }) => {
    if (!streaming) c.notTestable(`profile ${c.target.profile.name} has no streaming tool recipe`);
    const values = proc.values();
    const progress = values.filter((v) => isObject(v) && v.method === 'notifications/progress');
    c.verify(progress.length === 0, 'no progress notification is written to stdout', 0, progress);
    for (const id of streaming.ids) {
      const lines = values.filter((v): v is Record<string, any> => isObject(v) && v.id === id);
      c.verify(lines.length === 1, `the ${streaming.tool} call with id ${JSON.stringify(id)} yields exactly one line`, 1, lines);
      c.verify(isObject(lines[0]!.result), `that line is the final result of ${streaming.tool}`, 'a result', lines[0]);
    }
    c.observe(`${streaming.tool} with progress tokens ${streaming.tokens.map((t) => JSON.stringify(t)).join(' and ')}: one result line each, no progress`);
  }) });

  // "It MUST be the same as the value of the id member in the Request Object."
  check({ ids: 'stdio-ids-kept', name: 'every reply carries its request id, same value and type (string, integer, 0; concurrent calls)', timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'main', ({ proc, answered, sent, streaming }) => {
    for (const id of answered) {
      const replies = proc.responsesTo(id);
      const loose = proc.values().filter((v) => isResponse(v) && v.id !== id && v.id !== null && String(v.id) === String(id));
      c.verify(replies.length === 1, `request ${JSON.stringify(id)} gets exactly one reply with the same id`, 1,
        { replies: replies.length, ...(loose.length > 0 && { sameValueOtherType: loose }) });
    }
    const foreign = proc.values().filter((v) => isResponse(v) && v.id !== null && v.id !== undefined && !sent.includes(v.id));
    c.verify(foreign.length === 0, 'no reply carries an id that was never sent', [], foreign);
    if (streaming) {
      const firstReply = Math.min(...streaming.ids.map((id) => proc.messages().find((m) => isResponse(m.value) && m.value.id === id)?.at ?? Infinity));
      const lastSent = Math.max(...proc.sent.filter((s) => streaming.ids.some((id) => s.text.includes(`"id":${JSON.stringify(id)}`))).map((s) => s.at));
      c.observe(lastSent < firstReply ? `the two ${streaming.tool} calls were in flight together (both sent before either reply)` : 'a reply came before the second call was sent: the calls did not overlap');
    }
  }) });

  // "The Server MUST NOT reply to a Notification, including those that are within a batch request."
  check({ ids: 'stdio-notification-no-reply', name: 'notifications (initialized, cancelled) get no line on stdout', timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'main', ({ proc, sent }) => {
    const values = proc.values();
    const nullIds = values.filter((v) => isResponse(v) && (v.id === null || v.id === undefined));
    c.verify(nullIds.length === 0, 'no reply without an id: every line sent was valid JSON with a request id, so such a reply answers a notification', [], nullIds);
    // Replies with ids never sent (renumbered) may stand for unanswered requests; more of them than that are extra replies.
    const unknown = values.filter((v) => isResponse(v) && !sent.includes(v.id));
    const unanswered = sent.filter((id) => proc.responsesTo(id).length === 0);
    c.verify(unknown.length <= unanswered.length, 'no more replies than requests', `at most ${unanswered.length} replies with unknown ids`, unknown);
  }) });

  // "The server MUST NOT write anything to its stdout that is not a valid MCP message."
  check({ ids: 'stdio-stdout-only-messages', name: 'stdout carries JSON-RPC messages only: no banner, log line or blank line', timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'main', ({ proc }) => {
    const bad = proc.frames().filter((f) => f.kind === 'blank' || f.kind === 'garbage' || !isJsonRpcMessage(f.value));
    c.verify(bad.length === 0, 'every line on stdout is a JSON-RPC 2.0 message (no batch arrays are sent, so none come back)', 'JSON-RPC messages only',
      bad.map((f) => `line ${f.first + 1} (${f.kind === 'message' || f.kind === 'multiline' ? 'not a JSON-RPC message' : f.kind}): ${short(f.text)}`));
    c.observe(`${proc.lines.length} stdout lines, all JSON-RPC messages`);
  }) });

  // "Messages are delimited by newlines, and MUST NOT contain embedded newlines."
  check({ ids: 'stdio-newline-delimited', name: 'each message is one line ending in a newline, never spread over several', timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'main', ({ proc }) => {
    const spread = proc.frames().filter((f) => f.kind === 'multiline');
    c.verify(spread.length === 0, 'no message spans several lines (pretty-printed JSON)', 'one line per message',
      spread.map((f) => `lines ${f.first + 1}-${f.first + f.lines}: ${short(f.text)}`));
    c.verify(proc.partial === '', 'the last message ends with a newline', '"\\n" after every message', short(proc.partial));
  }) });

  // "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."
  check({ ids: 'stdio-bad-line-recovers', name: 'after a line of invalid JSON, later requests are still answered (-32700 observed)', timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'badLine', ({ proc }) => {
    const after = proc.responsesTo('after-bad')[0];
    c.verify(after !== undefined, 'tools/list after the invalid line gets its reply', 'a response with id "after-bad"', proc.exit ?? 'no reply');
    c.verify(isObject(after.result), 'that reply is a result', 'result', after);
    // A parse error cannot come back as a result: only error replies without an id can answer the invalid line.
    const nullReplies = proc.values().filter((v) => isObject(v) && 'error' in v && (v.id === null || v.id === undefined));
    if (nullReplies.length === 0) {
      c.observe('the invalid line got no reply (dropped silently, as the SDK stdio transport does); JSON-RPC would answer -32700 with id null');
    } else {
      c.verify(nullReplies.every((v: any) => v.error?.code === -32700), 'a reply to the invalid line is a -32700 Parse error', -32700, nullReplies);
      c.observe('the invalid line got a -32700 Parse error with id null');
    }
  }) });

  // "Receivers of cancellation notifications SHOULD: ... not send a response for the cancelled request."
  check({ ids: 'stdio-cancel-no-reply', name: 'a streaming call cancelled at once gets no reply', timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'main', ({ proc, streaming }) => {
    if (!streaming) c.notTestable(`profile ${c.target.profile.name} has no streaming tool recipe`);
    const replies = proc.responsesTo(streaming.cancelled);
    c.verify(replies.length === 0, `the ${streaming.tool} call cancelled right after it was sent gets no reply`, 'no line with id "cancel-me"', replies);
  }) });

  // "The server's `tools/list` is the source of truth for the tool set." (through the proxy as over HTTP)
  check({ ids: 'stdio-forwards-results', name: 'tools/list through the proxy equals tools/list over HTTP with the same key (every page)', timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'main', async ({ toolPages, toolsEndless, protocolVersion }) => {
    for (const [i, page] of toolPages.entries()) {
      c.verify(isObject(page?.result) && Array.isArray(page.result.tools), `tools/list page ${i + 1} over stdio returns tools`, 'result.tools', page);
    }
    const http = await followPages(async (cursor) => {
      const res = await c.mcp.request('tools/list', cursor === undefined ? undefined : { cursor }, { headers: protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {} });
      const result = finalMessage(res)?.result;
      c.verify(isObject(result) && Array.isArray(result.tools), 'tools/list over HTTP returns tools', 'result.tools', res.text.slice(0, 500));
      return result;
    });
    const direct = listed(http);
    const viaStdio: any[] = toolPages.flatMap((p) => p.result.tools);
    const names = (tools: any[]) => tools.map((t) => t?.name);
    const differing = direct.filter((t: any) => !viaStdio.some((s) => isDeepStrictEqual(s, t))).map((t: any) => t?.name);
    c.verify(isDeepStrictEqual(viaStdio, direct), 'the proxy forwards the tool list unchanged', { tools: names(direct), pages: http.results.length },
      { tools: names(viaStdio), pages: toolPages.length, differingOrMissing: differing });
    const endless = toolsEndless || http.endless ? ` (a nextCursor still came after ${MAX_LIST_PAGES} pages: compared that far)` : '';
    c.observe(`${direct.length} tools in ${toolPages.length} page(s), identical over stdio and HTTP${endless}`);
  }) });

  // "servers SHOULD exit promptly on stdin EOF" (after the client closes the input stream, it waits for the exit)
  check({ ids: 'stdio-exits-on-eof', name: `closing stdin makes the command exit with status 0 within ${EXIT_GRACE_MS / 1000} s`, timeout: TIMEOUT, run: (c: CheckContext) => reading(c, 'main', ({ proc }) => {
    const exit = proc.exit!;
    c.verify(!exit.spawnError, 'the command starts', 'a running process', exit.spawnError);
    c.verify(!exit.killed, `the command exits by itself within ${EXIT_GRACE_MS} ms of the end of its input`, `exit within ${EXIT_GRACE_MS} ms`, 'still running: terminated by the harness');
    c.verify(exit.code === 0, 'it exits with status 0', 0, { code: exit.code, signal: exit.signal });
    c.observe(`exited ${exit.afterEofMs} ms after stdin closed, status ${exit.code}`);
  }) });

  // "It is to be treated as a password" (the key comes from the environment and is never printed)
  check({ ids: 'stdio-key-not-printed', name: 'the API key appears neither on stdout nor on stderr', timeout: TIMEOUT, run: async (c: CheckContext) => {
    const key = spec(c).env.CANVAS_API_KEY;
    if (!key) c.notTestable(c.target.noKeyReason ?? 'the target has no API key to give the command');
    for (const which of ['main', 'badLine'] as const) {
      await reading(c, which, ({ proc }) => {
        const out = [...proc.lines.map((l) => l.text), proc.partial].filter((t) => t.includes(key)).length;
        const err = proc.stderr.split('\n').filter((t) => t.includes(key)).length;
        c.verify(out === 0 && err === 0, 'the key is never printed', 'no line holding the key', { stdoutLines: out, stderrLines: err });
      });
    }
  } });
});

export default seal();
