import { describe } from 'vitest';
import { check, runSecrets, type CheckContext } from '../src/check.js';
import type { Revision } from '../src/catalog/types.js';
import { bootstrapWorkspace } from '../src/fresh-workspace.js';
import { verifyHttpsUrls, type HandedOutUrl } from '../src/handed-out-urls.js';
import { McpSession } from '../src/mcp-session.js';
import { fill, type CallRecipe } from '../src/profile.js';
import type { TargetInfo } from '../src/target-info.js';
import { isObject } from '../src/tool-result.js';
import { WireClient, type WireResponse } from '../src/wire/client.js';
import type { Exchange } from '../src/wire/exchange.js';

/**
 * The bytes and frames of the service's replies, judged by the harness itself (src/catalog/wire.ts), not left
 * to whichever SDK client trips on them. One round of requests on a key of the group's own serves every row:
 * each streaming recipe twice with a progress token and once without, tools/list and a plain JSON call with
 * and without a token, and a call of an unknown tool whose name holds non-ASCII characters: a service echoes
 * it in its error, and that is where UTF-8 and Latin-1 differ (ASCII is the same bytes in both).
 */

/** A tool name no service offers, outside ASCII (Latin-1 letters and others), so its echo shows the encoding. */
const NON_ASCII_TOOL = 'conformance.prüfung-ツール';

interface Reply {
  label: string;
  /** The recipe's tool when this reply is a streaming tool's (the service's streams must be SSE). */
  streaming?: string;
  res?: WireResponse;
  error?: string;
  exchanges: Exchange[];
}

interface Round {
  replies: Reply[];
  /** The bootstrap and setup exchanges (their replies are judged for bytes too). */
  setup: Exchange[];
  /** Recipes that could not be called: a setup variable missing. */
  setupProblems: string[];
  vars: Record<string, unknown>;
  keyNote: string;
  deadlineMs: number;
  /** An MCP session on the group's key, writing into `log`, speaking `revision` (the run's primary one by default). */
  session(log: Exchange[], revision?: Revision): McpSession;
}

let round: Promise<Round> | undefined;

/** The embedded reference's streams take 4 x 40 ms: a short deadline keeps a never-closing one from costing the run's. */
function deadline(target: TargetInfo): number {
  return target.kind === 'embedded' ? Math.min(target.timeoutMs, 5000) : target.timeoutMs;
}

function missingVars(recipe: CallRecipe, vars: Record<string, unknown>): string[] {
  const names = (v: unknown): string[] => typeof v === 'string' ? [...v.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!)
    : Array.isArray(v) ? v.flatMap(names) : v && typeof v === 'object' ? Object.values(v).flatMap(names) : [];
  return names(recipe.arguments).filter((n) => vars[n] === undefined);
}

async function send(reply: Reply, call: () => Promise<WireResponse>): Promise<void> {
  try {
    reply.res = await call();
  } catch (err) {
    reply.error = (err as Error).message;
  }
}

async function runRound(target: TargetInfo): Promise<Round> {
  const secrets = runSecrets(target);
  // A workspace of the group's own, so that its blocks never push another suite's into the plan's cap.
  const own = await bootstrapWorkspace(target, secrets, 'wire');
  const info: TargetInfo = { ...target, apiKey: own.key ?? target.apiKey };
  const session = (log: Exchange[], revision?: Revision) => new McpSession(new WireClient(log, () => secrets, target.timeoutMs), info, revision ? { revision } : {});
  const setup: Exchange[] = [...own.exchanges];
  const deadlineMs = deadline(target);
  const vars: Record<string, unknown> = {};
  for (const recipe of target.profile.setup) await session(setup).recipe(recipe, vars, { timeoutMs: deadlineMs }).catch(() => undefined);
  const replies: Reply[] = [];
  const setupProblems: string[] = [];
  const sends: Promise<void>[] = [];
  const add = (label: string, call: (s: McpSession) => Promise<WireResponse>, streaming?: string) => {
    const reply: Reply = { label, exchanges: [], ...(streaming && { streaming }) };
    replies.push(reply);
    sends.push(send(reply, () => call(session(reply.exchanges))));
  };
  add('tools/list', (s) => s.request('tools/list', undefined, { timeoutMs: deadlineMs }));
  add('tools/list (progress token)', (s) => s.request('tools/list', { _meta: { progressToken: 'wire-list' } }, { timeoutMs: deadlineMs }));
  add(`tools/call ${NON_ASCII_TOOL}`, (s) => s.call(NON_ASCII_TOOL, {}, { timeoutMs: deadlineMs }));
  const plain = target.profile.calls.listBlocks;
  if (plain) {
    const args = fill(plain.arguments, vars) as Record<string, unknown>;
    add(`${plain.tool}`, (s) => s.call(plain.tool, args, { timeoutMs: deadlineMs }));
    add(`${plain.tool} (progress token)`, (s) => s.call(plain.tool, args, { progressToken: 'wire-plain', timeoutMs: deadlineMs }));
  }
  for (const [tool, recipe] of Object.entries(target.profile.streaming)) {
    const missing = missingVars(recipe, vars);
    if (missing.length > 0) {
      setupProblems.push(`${tool}: the profile's setup did not capture ${missing.map((m) => `{{${m}}}`).join(', ')}`);
      continue;
    }
    const args = fill(recipe.arguments, vars) as Record<string, unknown>;
    for (const n of [1, 2]) add(`${tool} (progress token ${n})`, (s) => s.call(recipe.tool, args, { progressToken: `wire-${tool}-${n}`, timeoutMs: deadlineMs }), tool);
    add(`${tool} (no token)`, (s) => s.call(recipe.tool, args, { timeoutMs: deadlineMs }), tool);
  }
  await Promise.all(sends);
  return { replies, setup, setupProblems, vars, keyNote: own.key ? own.note : target.apiKey ? `the target key (${own.note})` : `no key (${own.note})`, deadlineMs, session };
}

function getRound(c: CheckContext): Promise<Round> {
  round ??= runRound(c.target);
  return round;
}

/** The round's replies that arrived; a round where none did is the service's failure (nothing reached it, or it refused all). */
async function answered(c: CheckContext): Promise<{ r: Round; replies: (Reply & { res: WireResponse })[] }> {
  const r = await getRound(c);
  c.observe(`requests sent with ${r.keyNote}`);
  for (const p of r.setupProblems) c.observe(`not sent: ${p}`);
  const failed = r.replies.filter((x) => !x.res);
  if (failed.length > 0) c.observe(`${failed.length} request(s) got no reply: ${failed.slice(0, 3).map((x) => `${x.label}: ${x.error}`).join('; ')}`);
  const replies = r.replies.filter((x): x is Reply & { res: WireResponse } => !!x.res);
  if (replies.length === 0) {
    for (const x of r.replies) c.http.log.push(...x.exchanges);
    c.verify(false, 'no request of the round got a reply', 'replies to judge', failed.map((x) => `${x.label}: ${x.error}`).slice(0, 5));
  }
  return { r, replies };
}

/** The SSE replies; when there are none, the check ends: a streaming tool's reply that is no stream is the service's failure. */
function streams(c: CheckContext, r: Round, replies: (Reply & { res: WireResponse })[]): (Reply & { res: WireResponse })[] {
  const sse = replies.filter((x) => x.res.events);
  if (sse.length > 0) return sse;
  // Recipes the setup left uncallable are the service's doing, as in suites/streaming.suite.ts.
  c.verify(r.setupProblems.length === 0, `no streaming recipe could be called: ${r.setupProblems.join('; ')}`, 'setup captures every recipe variable', r.vars);
  const streaming = replies.filter((x) => x.streaming);
  if (streaming.length > 0) {
    c.http.log.push(...streaming[0]!.exchanges);
    c.verify(false, `no reply is an SSE stream, not even the streaming tools' (${streaming.map((x) => `${x.label}: ${x.res.status} ${x.res.mediaType || 'no content type'}`).slice(0, 3).join('; ')})`, 'text/event-stream', streaming[0]!.res.mediaType);
  }
  c.notApplicable(`every one of the ${replies.length} replies is application/json and the profile has no streaming recipe: there is no SSE event to judge`);
}

/** Evidence: the exchanges of the replies named. */
function attach(c: CheckContext, replies: Reply[]): void {
  for (const x of new Set(replies)) c.http.log.push(...x.exchanges);
}

/** A message as JSON-RPC 2.0 defines them: a request or notification (`method`), or a response (`result` or `error`). */
const isJsonRpc = (m: unknown): m is Record<string, any> => isObject(m) && (typeof m.method === 'string' || 'result' in m || 'error' in m);

/** Every JSON-RPC message of a reply with where it is: each SSE event's (empty data carries none), or the JSON body's. */
function messagesOf(x: Reply & { res: WireResponse }): { m: any; where: string }[] {
  const { res } = x;
  if (res.events) return res.events.flatMap((e, i) => (e.data === '' ? [] : [{ m: res.messages![i], where: `${x.label}, SSE event ${i + 1}` }]));
  if (Array.isArray(res.json)) return res.json.map((m, i) => ({ m, where: `${x.label}, batch item ${i + 1}` }));
  return res.json === undefined ? [] : [{ m: res.json, where: x.label }];
}

/** Around the first U+FFFD of a text: what a strict decoder refused, as the lenient one showed it. */
function aroundReplacement(text: string): string {
  const at = text.indexOf('\uFFFD');
  return at < 0 ? '(no replacement character: the body ended inside a character)' : JSON.stringify(text.slice(Math.max(0, at - 40), at + 40));
}

const isJsonType = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

/** Discovery files whose links the service hands out. */
const DISCOVERY = ['/agent.md', '/llms.txt', '/llms-full.txt'];
/** Paths of the service itself: a link to one of them names the service, on whatever host it is published. */
const SERVICE_PATHS = /^\/(api\/|claim\/|agent\.md$|llms(-full)?\.txt$)/;

describe('wire', () => {
  // "JSON-RPC messages MUST be UTF-8 encoded." (MCP transports); RFC 8259: JSON text "MUST be encoded using
  // UTF-8"; WHATWG: "Event streams in this format must always be encoded as UTF-8."
  check('wire-utf8', 'every reply, JSON body or event stream, is UTF-8', async (c) => {
    const { r, replies } = await answered(c);
    const bad = replies.filter((x) => x.res.bytes?.utf8 === false);
    attach(c, bad);
    for (const x of bad) {
      c.verify(false, `${x.label}: the ${x.res.events ? 'event stream' : 'body'} (${x.res.headers['content-type'] ?? 'no content type'}) is not UTF-8: a strict decoder refuses its bytes, shown with U+FFFD near ${aroundReplacement(x.res.text)}`, 'UTF-8', x.res.headers['content-type'] ?? null);
    }
    const setupBad = r.setup.filter((e) => e.response?.bytes?.utf8 === false);
    c.http.log.push(...setupBad);
    c.verify(setupBad.length === 0, `the bootstrap or setup replies are not UTF-8 (${setupBad.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`).join('; ')})`, 'UTF-8', setupBad.map((e) => e.response?.headers['content-type'] ?? null));
    const nonAscii = replies.filter((x) => /[^\x00-\x7f]/.test(x.res.text));
    c.observe(`${replies.length} replies, all UTF-8; ${nonAscii.length} of them carry non-ASCII text (where UTF-8 and Latin-1 differ)${nonAscii.length ? `: ${nonAscii.slice(0, 3).map((x) => x.label).join(', ')}` : ''}`);
  }, { generic: true });

  // "Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted JSON
  // text." (RFC 8259 §8.1) A JSON body is one, and so is each event's data; the SSE grammar `stream = [ bom ]
  // *event` allows one BOM before the first event, which is observed only.
  check('wire-json-no-bom', 'no JSON body, and no event\'s data, begins with a byte order mark', async (c) => {
    const { r, replies } = await answered(c);
    const bodies = replies.filter((x) => !x.res.events && x.res.bytes?.bom);
    const events = replies.flatMap((x) => (x.res.events ?? []).flatMap((e, i) => (e.data.charCodeAt(0) === 0xfeff ? [{ x, i }] : [])));
    attach(c, [...bodies, ...events.map((e) => e.x)]);
    c.verify(bodies.length === 0, `a JSON reply body begins with a BOM (U+FEFF): ${bodies.map((x) => `${x.label} (${x.res.headers['content-type'] ?? 'no content type'})`).slice(0, 5).join('; ')}`, 'no BOM', bodies.map((x) => x.label));
    c.verify(events.length === 0, `the data of an SSE event begins with a BOM (U+FEFF): ${events.slice(0, 5).map((e) => `${e.x.label}, event ${e.i + 1}`).join('; ')}`, 'no BOM', events.slice(0, 5).map((e) => JSON.stringify(e.x.res.events![e.i]!.data.slice(0, 80))));
    const setupBom = r.setup.filter((e) => e.response?.bytes?.bom && isJsonType((e.response.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase()));
    c.http.log.push(...setupBom);
    c.verify(setupBom.length === 0, `a bootstrap or setup JSON reply begins with a BOM (${setupBom.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`).join('; ')})`, 'no BOM', setupBom.length);
    const opened = replies.filter((x) => x.res.events && x.res.bytes?.bom);
    if (opened.length > 0) c.observe(`${opened.length} event stream(s) open with one BOM, which the SSE grammar allows (stream = [ bom ] *event): ${opened.slice(0, 3).map((x) => x.label).join(', ')}`);
  }, { generic: true });

  // "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification." Each SSE event
  // carries one JSON-RPC message; an event with empty data (2025-11-25's priming event) carries none.
  check('wire-sse-data-jsonrpc', 'the data of every SSE event is one JSON-RPC message', async (c) => {
    const { r, replies } = await answered(c);
    const sse = streams(c, r, replies);
    let events = 0;
    let empty = 0;
    const bad: { x: Reply; i: number; data: string }[] = [];
    for (const x of sse) {
      x.res.events!.forEach((e, i) => {
        if (e.data === '') return void (empty += 1);
        events += 1;
        if (!isJsonRpc(x.res.messages![i])) bad.push({ x, i, data: e.data });
      });
    }
    attach(c, bad.map((b) => b.x));
    c.verify(bad.length === 0, `${bad.length} SSE event(s) carry data that is no JSON-RPC message (neither a method nor a result or error): ${bad.slice(0, 3).map((b) => `${b.x.label}, event ${b.i + 1}: ${b.data.slice(0, 120)}`).join('; ')}`, 'a JSON-RPC request, notification or response in every event', bad.slice(0, 5).map((b) => b.data.slice(0, 200)));
    c.observe(`${events} events with data in ${sse.length} streams, each a JSON-RPC message${empty ? `; ${empty} event(s) with empty data (no message)` : ''}`);
  }, { generic: true });

  // "Notifications MUST NOT include an ID." (MCP basic/index) JSON-RPC §4.1: "A Notification is a Request
  // object without an "id" member."
  check('wire-notification-no-id', 'no notification the service sends carries an id', async (c) => {
    const { replies } = await answered(c);
    const notifications = replies.flatMap((x) => messagesOf(x).filter(({ m }) => isObject(m) && typeof m.method === 'string' && m.method.startsWith('notifications/')).map((n) => ({ ...n, x })));
    const withId = notifications.filter(({ m }) => 'id' in m);
    attach(c, withId.map((n) => n.x));
    c.verify(withId.length === 0, `${withId.length} of ${notifications.length} notifications carry an id: ${withId.slice(0, 3).map((n) => `${n.where}: ${n.m.method} with id ${JSON.stringify(n.m.id)}`).join('; ')}`, 'no id member', withId.slice(0, 5).map((n) => n.m));
    c.observe(`${notifications.length} notification(s) in the replies, none with an id (${[...new Set(notifications.map((n) => n.m.method))].join(', ') || 'none sent'})`);
  }, { generic: true });

  // WHATWG: "If the event type buffer has a value other than the empty string, change the type of the newly
  // created event to equal the value of the event type buffer": only `message` events (an event without an
  // `event` field is one) reach a client's message handler; the SDK clients drop the others.
  check('wire-sse-event-type', 'every SSE event carrying a message is of type message (or has no event field)', async (c) => {
    const { r, replies } = await answered(c);
    const sse = streams(c, r, replies);
    const typed = sse.flatMap((x) => x.res.events!.flatMap((e, i) => (e.data !== '' && e.event !== undefined && e.event !== 'message' ? [{ x, i, type: e.event }] : [])));
    attach(c, typed.map((t) => t.x));
    c.verify(typed.length === 0, `${typed.length} SSE event(s) are typed other than "message", so an MCP client never receives their message: ${typed.slice(0, 4).map((t) => `${t.x.label}, event ${t.i + 1}: event: ${t.type}`).join('; ')}`, 'event: message, or no event field', [...new Set(typed.map((t) => t.type))]);
    const types = new Set(sse.flatMap((x) => x.res.events!.map((e) => e.event ?? '(none)')));
    c.observe(`event types seen in ${sse.length} streams: ${[...types].join(', ')}`);
  }, { generic: true });

  // "jsonrpc: A String specifying the version of the JSON-RPC protocol. MUST be exactly "2.0"." Here the
  // messages inside streams (progress, results of streaming tools) and of the round's JSON replies;
  // suites/jsonrpc.suite.ts samples the replies to malformed and unknown requests.
  check('jsonrpc-version-member', 'every message of every stream, and of the JSON replies to calls, says "jsonrpc": "2.0"', async (c) => {
    const { replies } = await answered(c);
    const all = replies.flatMap((x) => messagesOf(x).filter(({ m }) => isJsonRpc(m)).map((n) => ({ ...n, x })));
    const wrong = all.filter(({ m }) => m.jsonrpc !== '2.0');
    attach(c, wrong.map((w) => w.x));
    c.verify(all.length > 0, 'the replies carry no JSON-RPC message to judge', '>= 1 message', replies.map((x) => `${x.label}: ${x.res.status} ${x.res.mediaType}`).slice(0, 5));
    c.verify(wrong.length === 0, `${wrong.length} of ${all.length} messages lack "jsonrpc": "2.0": ${wrong.slice(0, 3).map((w) => `${w.where}: ${w.m.method ?? ('result' in w.m ? 'result' : 'error')} with jsonrpc ${JSON.stringify(w.m.jsonrpc ?? null)}`).join('; ')}`, '2.0', wrong.slice(0, 5).map((w) => w.m.jsonrpc ?? null));
    c.observe(`${all.length} messages in ${replies.length} replies (${replies.filter((x) => x.res.events).length} streams), each with "jsonrpc": "2.0"`);
  }, { generic: true });

  // "If present, the ID MUST be globally unique across all streams within that session—or all streams with
  // that specific client, if session management is not in use." One key is one client here: the round's
  // streams and this revision's own (each streaming recipe once more, tools/list once more) are all its streams.
  // The row's revisions leave 2026-07-28 out: it has no resumable streams, so no rule on event ids.
  check('wire-sse-event-id-unique', 'SSE event ids, where present, are unique across all streams of one key', async (c) => {
    const { r, replies } = await answered(c);
    const own: Reply[] = [];
    const revision = c.revision;
    const sends: Promise<void>[] = [];
    const add = (label: string, call: (s: McpSession) => Promise<WireResponse>) => {
      const reply: Reply = { label: `${label} [${revision ?? 'no revision'}]`, exchanges: [] };
      own.push(reply);
      sends.push(send(reply, () => call(r.session(reply.exchanges, revision))));
    };
    add('tools/list', (s) => s.request('tools/list', undefined, { timeoutMs: r.deadlineMs }));
    for (const [tool, recipe] of Object.entries(c.target.profile.streaming)) {
      if (missingVars(recipe, r.vars).length > 0) continue;
      add(`${tool} (progress token)`, (s) => s.call(recipe.tool, fill(recipe.arguments, r.vars) as Record<string, unknown>, { progressToken: `wire-ids-${tool}`, timeoutMs: r.deadlineMs }));
    }
    await Promise.all(sends);
    const all = [...replies, ...own.filter((x): x is Reply & { res: WireResponse } => !!x.res)];
    const sse = streams(c, r, all);
    const seen = new Map<string, { x: Reply; i: number }[]>();
    for (const x of sse) x.res.events!.forEach((e, i) => e.id !== undefined && seen.set(e.id, [...(seen.get(e.id) ?? []), { x, i }]));
    const repeated = [...seen].filter(([, at]) => at.length > 1);
    attach(c, repeated.flatMap(([, at]) => at.map((a) => a.x)).slice(0, 4));
    c.verify(repeated.length === 0, `${repeated.length} event id(s) appear more than once across the ${sse.length} streams of one key: ${repeated.slice(0, 3).map(([id, at]) => `${JSON.stringify(id)} in ${at.slice(0, 3).map((a) => `${a.x.label} event ${a.i + 1}`).join(', ')}`).join('; ')}`, 'each event id once', repeated.slice(0, 5).map(([id, at]) => ({ id, times: at.length })));
    const ids = [...seen.values()].reduce((n, at) => n + at.length, 0);
    c.observe(ids === 0 ? `no event of the ${sse.length} streams carries an id (ids are optional)` : `${ids} event ids in ${sse.length} streams, all distinct`);
  }, { generic: true });

  // "Transport is HTTPS carrying JSON-RPC 2.0." (service.md) The discovery files' links to the service are
  // https when it is reached over https (the bootstrap reply's claimUrl: suites/bootstrap.suite.ts).
  check('wire-https-urls', 'the discovery files link to the service over https when it is reached over https', async (c) => {
    const replies = await Promise.all(DISCOVERY.map((p) => c.http.request(`${c.target.baseUrl}${p}`, { method: 'GET', headers: { accept: 'text/markdown, text/plain;q=0.9, */*;q=0.1' } })));
    const served = DISCOVERY.filter((_, i) => replies[i]!.status === 200);
    // The files themselves are discovery-files-served's; without any there is no link to judge.
    c.verify(served.length > 0, `no discovery file is served (${DISCOVERY.map((p, i) => `${p}: ${replies[i]!.status}`).join('; ')})`, 200, replies.map((x) => x.status));
    const target = new URL(c.target.baseUrl);
    const urls: HandedOutUrl[] = [];
    const elsewhere = new Set<string>();
    DISCOVERY.forEach((p, i) => {
      if (replies[i]!.status !== 200) return;
      for (const m of replies[i]!.text.matchAll(/https?:\/\/[^\s`'"()<>\]]+/gi)) {
        const raw = m[0].replace(/[.,;:!?]+$/, '');
        let url: URL;
        try {
          url = new URL(raw);
        } catch {
          continue;
        }
        // The service's own: its host (any port, any scheme), or a path of the service on a public host it names.
        if (url.hostname === target.hostname || SERVICE_PATHS.test(url.pathname)) urls.push({ where: p, url: raw });
        else elsewhere.add(url.origin);
      }
    });
    if (elsewhere.size > 0) c.observe(`links to other hosts, not the service's to judge: ${[...elsewhere].slice(0, 5).join(', ')}`);
    verifyHttpsUrls(c, urls, 'the discovery files\' links');
  });
});
