import type { CheckContext } from '../engine/check.js';
import { isObject } from '../mcp/tool-result.js';
import type { WireResponse } from '../wire/client.js';
import type { Exchange } from '../wire/exchange.js';

/**
 * The wire rows' judgements (src/catalog/wire.ts) over a set of replies, whichever suite sent them:
 * suites/streaming.suite.ts applies them to its round of streams, suites/wire.suite.ts to plain requests
 * (and to any MCP server's replies under the generic profile). Each names the offending reply and event, and
 * attaches only the offending exchanges as evidence.
 */

/** A reply with a label for messages ("blocks.create (string token)") and its exchanges as evidence. */
export interface LabelledReply { label: string; res: WireResponse; exchanges: Exchange[] }

/** A message as JSON-RPC 2.0 defines them: a request or notification (`method`), or a response (`result` or `error`). */
export const isJsonRpc = (m: unknown): m is Record<string, any> => isObject(m) && (typeof m.method === 'string' || 'result' in m || 'error' in m);

const isJsonType = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

function attach(c: CheckContext, replies: LabelledReply[]): void {
  for (const x of new Set(replies)) c.http.log.push(...x.exchanges);
}

/** Every JSON-RPC message of a reply with where it is: each SSE event's (empty data carries none), or the JSON body's. */
function messagesOf(x: LabelledReply): { m: any; where: string }[] {
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

/** The exchanges of `log` whose reply decoding found `what` (bootstrap and setup replies, recorded elsewhere). */
function exchangesWith(log: Exchange[], what: (bytes: NonNullable<NonNullable<Exchange['response']>['bytes']>, mediaType: string) => boolean): Exchange[] {
  return log.filter((e) => e.response?.bytes && what(e.response.bytes, (e.response.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase()));
}

const named = (e: Exchange) => `${e.request.method} ${new URL(e.request.url).pathname}`;

/** wire-utf8: every reply, JSON body or event stream, is UTF-8 (and so is every exchange of `recorded`). */
export function judgeUtf8(c: CheckContext, replies: LabelledReply[], recorded: Exchange[] = []): void {
  const bad = replies.filter((x) => x.res.bytes?.utf8 === false);
  attach(c, bad);
  for (const x of bad) {
    c.verify(false, `${x.label}: the ${x.res.events ? 'event stream' : 'body'} (${x.res.headers['content-type'] ?? 'no content type'}) is not UTF-8: a strict decoder refuses its bytes, shown with U+FFFD near ${aroundReplacement(x.res.text)}`, 'UTF-8', x.res.headers['content-type'] ?? null);
  }
  const other = exchangesWith(recorded, (b) => !b.utf8);
  c.http.log.push(...other);
  c.verify(other.length === 0, `replies that are not UTF-8: ${other.map(named).join('; ')}`, 'UTF-8', other.map((e) => e.response?.headers['content-type'] ?? null));
  const nonAscii = replies.filter((x) => /[^\x00-\x7f]/.test(x.res.text));
  c.observe(`${replies.length} replies, all UTF-8; ${nonAscii.length} of them carry non-ASCII text (where UTF-8 and Latin-1 differ)${nonAscii.length ? `: ${nonAscii.slice(0, 3).map((x) => x.label).join(', ')}` : ''}`);
}

/**
 * wire-json-no-bom: no JSON body and no event's data begins with U+FEFF; the one BOM the SSE grammar allows
 * before a stream's first event (`stream = [ bom ] *event`) is observed only.
 */
export function judgeNoBom(c: CheckContext, replies: LabelledReply[], recorded: Exchange[] = []): void {
  const bodies = replies.filter((x) => !x.res.events && x.res.bytes?.bom);
  const events = replies.flatMap((x) => (x.res.events ?? []).flatMap((e, i) => (e.data.charCodeAt(0) === 0xfeff ? [{ x, i }] : [])));
  attach(c, [...bodies, ...events.map((e) => e.x)]);
  c.verify(bodies.length === 0, `a JSON reply body begins with a BOM (U+FEFF): ${bodies.map((x) => `${x.label} (${x.res.headers['content-type'] ?? 'no content type'})`).slice(0, 5).join('; ')}`, 'no BOM', bodies.map((x) => x.label));
  c.verify(events.length === 0, `the data of an SSE event begins with a BOM (U+FEFF): ${events.slice(0, 5).map((e) => `${e.x.label}, event ${e.i + 1}`).join('; ')}`, 'no BOM', events.slice(0, 5).map((e) => JSON.stringify(e.x.res.events![e.i]!.data.slice(0, 80))));
  const other = exchangesWith(recorded, (b, type) => b.bom && isJsonType(type));
  c.http.log.push(...other);
  c.verify(other.length === 0, `a JSON reply body begins with a BOM (U+FEFF): ${other.map(named).join('; ')}`, 'no BOM', other.length);
  const opened = replies.filter((x) => x.res.events && x.res.bytes?.bom);
  if (opened.length > 0) c.observe(`${opened.length} event stream(s) open with one BOM, which the SSE grammar allows (stream = [ bom ] *event): ${opened.slice(0, 3).map((x) => x.label).join(', ')}`);
}

/** wire-sse-data-jsonrpc: the data of every event of `streams` is one JSON-RPC message (empty data carries none). */
export function judgeSseData(c: CheckContext, streams: LabelledReply[]): void {
  let events = 0;
  let empty = 0;
  const bad: { x: LabelledReply; i: number; data: string }[] = [];
  for (const x of streams) {
    (x.res.events ?? []).forEach((e, i) => {
      if (e.data === '') return void (empty += 1);
      events += 1;
      if (!isJsonRpc(x.res.messages![i])) bad.push({ x, i, data: e.data });
    });
  }
  attach(c, bad.map((b) => b.x));
  c.verify(bad.length === 0, `${bad.length} SSE event(s) carry data that is no JSON-RPC message (neither a method nor a result or error): ${bad.slice(0, 3).map((b) => `${b.x.label}, event ${b.i + 1}: ${b.data.slice(0, 120)}`).join('; ')}`, 'a JSON-RPC request, notification or response in every event', bad.slice(0, 5).map((b) => b.data.slice(0, 200)));
  c.observe(`${events} events with data in ${streams.length} streams, each a JSON-RPC message${empty ? `; ${empty} event(s) with empty data (no message)` : ''}`);
}

/** wire-notification-no-id: no `notifications/*` message carries an `id`. */
export function judgeNotificationIds(c: CheckContext, replies: LabelledReply[]): void {
  const notifications = replies.flatMap((x) => messagesOf(x).filter(({ m }) => isObject(m) && typeof m.method === 'string' && m.method.startsWith('notifications/')).map((n) => ({ ...n, x })));
  const withId = notifications.filter(({ m }) => 'id' in m);
  attach(c, withId.map((n) => n.x));
  c.verify(withId.length === 0, `${withId.length} of ${notifications.length} notifications carry an id: ${withId.slice(0, 3).map((n) => `${n.where}: ${n.m.method} with id ${JSON.stringify(n.m.id)}`).join('; ')}`, 'no id member', withId.slice(0, 5).map((n) => n.m));
  c.observe(`${notifications.length} notification(s) in the replies, none with an id (${[...new Set(notifications.map((n) => n.m.method))].join(', ') || 'none sent'})`);
}

/** wire-sse-event-type: every event carrying data is of type `message`, or has no `event` field. */
export function judgeEventTypes(c: CheckContext, streams: LabelledReply[]): void {
  const typed = streams.flatMap((x) => (x.res.events ?? []).flatMap((e, i) => (e.data !== '' && e.event !== undefined && e.event !== 'message' ? [{ x, i, type: e.event }] : [])));
  attach(c, typed.map((t) => t.x));
  c.verify(typed.length === 0, `${typed.length} SSE event(s) are typed other than "message", so an MCP client never receives their message: ${typed.slice(0, 4).map((t) => `${t.x.label}, event ${t.i + 1}: event: ${t.type}`).join('; ')}`, 'event: message, or no event field', [...new Set(typed.map((t) => t.type))]);
  const types = new Set(streams.flatMap((x) => (x.res.events ?? []).map((e) => e.event ?? '(none)')));
  c.observe(`event types seen in ${streams.length} streams: ${[...types].join(', ')}`);
}

/** jsonrpc-version-member: every JSON-RPC message of the replies (inside streams too) says "jsonrpc": "2.0". */
export function judgeVersionMember(c: CheckContext, replies: LabelledReply[]): void {
  const all = replies.flatMap((x) => messagesOf(x).filter(({ m }) => isJsonRpc(m)).map((n) => ({ ...n, x })));
  const wrong = all.filter(({ m }) => m.jsonrpc !== '2.0');
  attach(c, wrong.map((w) => w.x));
  c.verify(all.length > 0, 'the replies carry no JSON-RPC message to judge', '>= 1 message', replies.map((x) => `${x.label}: ${x.res.status} ${x.res.mediaType}`).slice(0, 5));
  c.verify(wrong.length === 0, `${wrong.length} of ${all.length} messages lack "jsonrpc": "2.0": ${wrong.slice(0, 3).map((w) => `${w.where}: ${w.m.method ?? ('result' in w.m ? 'result' : 'error')} with jsonrpc ${JSON.stringify(w.m.jsonrpc ?? null)}`).join('; ')}`, '2.0', wrong.slice(0, 5).map((w) => w.m.jsonrpc ?? null));
  c.observe(`${all.length} messages in ${replies.length} replies (${replies.filter((x) => x.res.events).length} streams), each with "jsonrpc": "2.0"`);
}

/** wire-sse-event-id-unique: the ids of the events of `streams` (all of one client), where present, are all distinct. */
export function judgeEventIds(c: CheckContext, streams: LabelledReply[]): void {
  const seen = new Map<string, { x: LabelledReply; i: number }[]>();
  for (const x of streams) (x.res.events ?? []).forEach((e, i) => e.id !== undefined && seen.set(e.id, [...(seen.get(e.id) ?? []), { x, i }]));
  const repeated = [...seen].filter(([, at]) => at.length > 1);
  attach(c, repeated.flatMap(([, at]) => at.map((a) => a.x)).slice(0, 4));
  c.verify(repeated.length === 0, `${repeated.length} event id(s) appear more than once across the ${streams.length} streams of one key: ${repeated.slice(0, 3).map(([id, at]) => `${JSON.stringify(id)} in ${at.slice(0, 3).map((a) => `${a.x.label} event ${a.i + 1}`).join(', ')}`).join('; ')}`, 'each event id once', repeated.slice(0, 5).map(([id, at]) => ({ id, times: at.length })));
  const ids = [...seen.values()].reduce((n, at) => n + at.length, 0);
  c.observe(ids === 0 ? `no event of the ${streams.length} streams carries an id (ids are optional)` : `${ids} event ids in ${streams.length} streams, all distinct`);
}
