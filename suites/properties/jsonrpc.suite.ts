import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe } from 'vitest';
import { check, type CheckContext } from '../../src/check.js';
import type { Revision } from '../../src/catalog/types.js';
import { freshKey } from '../../src/properties/workspaces.js';
import type { WireResponse } from '../../src/wire/client.js';

/**
 * JSON-RPC envelopes searched rather than sampled: ids of every JSON type, members missing, extra or of the
 * wrong type, wrong `jsonrpc`, unknown methods, notifications, stray responses, and (under 2025-03-26)
 * batches of them, POSTed with a live key. The scenario suite sends a dozen fixed bodies; these send
 * hundreds per run, each judged by what JSON-RPC 2.0 and the MCP transport say of its kind.
 */

const MODERN = '2026-07-28';
const BATCH_REVISION = '2025-03-26';
const UNKNOWN_PREFIX = 'conformance/';
/** Cheap runs (one loopback POST): a cap keeps the five checks of this file to a few seconds together. */
const MAX_RUNS = 300;
/** A JSON reply on loopback takes a few ms: a request still unanswered after this is a hang. */
const REPLY_DEADLINE_MS = 1000;

// ---------------------------------------------------------------------------------------------------------
// Envelopes: each member present with a value (as JSON text, so ids beyond 2^53 go out exactly), or absent.

interface Slot {
  value: unknown;
  /** JSON text of the value when JSON.stringify would not write it exactly (integers beyond 2^53). */
  raw?: string;
}

interface Envelope {
  jsonrpc?: Slot;
  id?: Slot;
  method?: Slot;
  params?: Slot;
  extras: [string, Slot][];
}

const slot = (value: unknown): Slot => ({ value });
const text = (s: Slot) => s.raw ?? JSON.stringify(s.value);

function bodyOf(e: Envelope): string {
  const members: [string, Slot | undefined][] = [['jsonrpc', e.jsonrpc], ['id', e.id], ['method', e.method], ['params', e.params], ...e.extras];
  return `{${members.filter((m): m is [string, Slot] => m[1] !== undefined).map(([k, s]) => `${JSON.stringify(k)}:${text(s)}`).join(',')}}`;
}

const absent = fc.constant(undefined);
const json = fc.jsonValue({ maxDepth: 2 });

const idArb: fc.Arbitrary<Slot | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 1_000_000 }).map(slot) },
  { weight: 1, arbitrary: fc.integer({ min: -1_000_000_000, max: -1 }).map(slot) },
  { weight: 1, arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 31, 2 ** 31 - 1, 2 ** 32, -(2 ** 31)).map(slot) },
  // Integers beyond 2^53: written exactly, so a reply that loses precision shows.
  { weight: 1, arbitrary: fc.tuple(fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 22n }), fc.boolean()).map(([b, neg]) => ({ value: Number(neg ? -b : b), raw: String(neg ? -b : b) })) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((x) => !Number.isInteger(x)).map(slot) },
  { weight: 3, arbitrary: fc.string({ maxLength: 16 }).map(slot) },
  // Strings that look like numbers: "7" is a string id, not 7.
  { weight: 2, arbitrary: fc.oneof(fc.integer().map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map(String), fc.constantFrom('1e3', ' 7', '0x10', '007', '-0', '1.0', '9007199254740993')).map(slot) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }).map(slot) },
  { weight: 1, arbitrary: fc.constant(slot('')) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false).map(slot) },
  { weight: 1, arbitrary: fc.oneof(fc.constant({}), fc.array(fc.integer(), { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 })).map(slot) },
  { weight: 2, arbitrary: absent },
);

const jsonrpcArb: fc.Arbitrary<Slot | undefined> = fc.oneof(
  { weight: 10, arbitrary: fc.constant(slot('2.0')) },
  { weight: 1, arbitrary: absent },
  { weight: 2, arbitrary: fc.constantFrom('1.0', 2, '2.0 ', ' 2.0', '2', '', null, '2.00').map(slot) },
);

const KNOWN_REQUESTS = ['tools/list', 'ping'];
const NOTIFICATIONS = ['notifications/initialized', 'notifications/cancelled', 'notifications/conformance-unknown'];

const methodArb: fc.Arbitrary<Slot | undefined> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...KNOWN_REQUESTS).map(slot) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 10 }).map((s) => slot(`${UNKNOWN_PREFIX}${s}`)) },
  { weight: 2, arbitrary: fc.constantFrom(...NOTIFICATIONS).map(slot) },
  { weight: 1, arbitrary: fc.constant(slot('tools/call')) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant('')).map(slot) },
  { weight: 1, arbitrary: absent },
);

const paramsArb: fc.Arbitrary<Slot | undefined> = fc.oneof(
  { weight: 5, arbitrary: absent },
  { weight: 3, arbitrary: fc.constant(slot({})) },
  // Named params with members no method takes (`cursor` is one tools/list does take: a bad one is -32602).
  { weight: 2, arbitrary: fc.dictionary(fc.constantFrom('foo', 'x', 'cursor', 'reason', 'requestId', 'name'), json, { minKeys: 1, maxKeys: 2 }).map(slot) },
  { weight: 1, arbitrary: fc.constant(slot({ _meta: {} })) },
  // JSON-RPC's by-position params; MCP defines every method with named ones.
  { weight: 2, arbitrary: fc.array(json, { maxLength: 3 }).map(slot) },
  // Not structured at all: JSON-RPC says params "MUST be a Structured value".
  { weight: 2, arbitrary: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null), fc.boolean()).map(slot) },
);

const extrasArb: fc.Arbitrary<[string, Slot][]> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<[string, Slot][]>([]) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('foo', 'x-trace', 'meta', 'version'), json).map(([k, v]) => [[k, slot(v)]] as [string, Slot][]) },
  { weight: 1, arbitrary: fc.constantFrom<[string, Slot][]>([['result', slot({})]], [['error', slot({ code: -32000, message: 'x' })]], [['result', slot(null)]]) },
);

const envelopeArb: fc.Arbitrary<Envelope> = fc.record({ jsonrpc: jsonrpcArb, id: idArb, method: methodArb, params: paramsArb, extras: extrasArb });

// ---------------------------------------------------------------------------------------------------------
// What each envelope is, by JSON-RPC 2.0 §4-§5 and MCP basic/index (ids are strings or integers, never null).

type Kind =
  /** A request MCP allows: the reply is a response with exactly its id. */
  | 'request'
  /** A request whose integer id is beyond 2^53: answered with exactly that id, or refused with id null. */
  | 'big-id-request'
  /** A notification: 202 and no body, or (if the server cannot accept it) a 4xx. */
  | 'notification'
  /** A JSON-RPC response the client sent (well-formed or not): 202 and no body, or a 4xx. */
  | 'response'
  /** Not a valid request: a JSON-RPC error, never 202, never a result. */
  | 'invalid'
  /** Rules differ on it (a request that also has `result`, an empty method name): only the universal rules. */
  | 'ambiguous';

interface Classified {
  kind: Kind;
  /** The request id a response must carry exactly (requests), or may echo (invalid ones). */
  id?: unknown;
  /** Why it is invalid. */
  defects: string[];
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const validId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

function classify(e: Envelope): Classified {
  const extras = new Set(e.extras.map(([k]) => k));
  const answerLike = extras.has('result') || extras.has('error');
  if (e.method === undefined) {
    if (answerLike) return { kind: 'response', id: e.id?.value, defects: [] };
    return { kind: 'invalid', id: e.id?.value, defects: ['no method, result or error member'] };
  }
  if (answerLike || e.method.value === '') return { kind: 'ambiguous', id: e.id?.value, defects: [] };
  const defects: string[] = [];
  if (e.jsonrpc?.value !== '2.0') defects.push(`"jsonrpc" is ${e.jsonrpc ? JSON.stringify(e.jsonrpc.value) : 'absent'}`);
  if (typeof e.method.value !== 'string') defects.push('"method" is not a string');
  if (e.params !== undefined && !isObject(e.params.value) && !Array.isArray(e.params.value)) defects.push('"params" is not structured');
  if (e.id !== undefined && !validId(e.id.value) && e.id.raw === undefined) defects.push(`"id" is ${JSON.stringify(e.id.value)}`);
  if (defects.length > 0) return { kind: 'invalid', id: e.id?.value, defects };
  if (e.id === undefined) return { kind: 'notification', defects: [] };
  if (e.id.raw !== undefined) return { kind: 'big-id-request', id: e.id.raw, defects: [] };
  return { kind: 'request', id: e.id.value, defects: [] };
}

function show(e: Envelope, revision?: string): string {
  return `${bodyOf(e)}${revision ? ` (MCP-Protocol-Version: ${revision})` : ''}`;
}

// ---------------------------------------------------------------------------------------------------------
// Replies.

/** The JSON-RPC messages of a reply: SSE messages, a JSON array's items, or the JSON object. */
function messagesOf(res: WireResponse): unknown[] {
  if (res.messages) return res.messages;
  if (Array.isArray(res.json)) return res.json;
  return res.json === undefined ? [] : [res.json];
}

/** Responses among them (the final message of a stream; notifications before it are not responses). */
function responsesOf(res: WireResponse): any[] {
  return messagesOf(res).filter((m) => isObject(m) && !('method' in m));
}

/**
 * The JSON text of a top-level member of a JSON object (undefined when absent): lets an integer id beyond
 * 2^53 be compared digit for digit, which JSON.parse cannot.
 */
function rawMember(source: string, key: string): string | undefined {
  let i = 0;
  const ws = () => {
    while (i < source.length && /\s/.test(source[i]!)) i++;
  };
  const skipString = () => {
    i++;
    while (i < source.length && source[i] !== '"') i += source[i] === '\\' ? 2 : 1;
    i++;
  };
  const skipValue = () => {
    ws();
    if (source[i] === '"') return skipString();
    if (source[i] === '{' || source[i] === '[') {
      let depth = 0;
      do {
        if (source[i] === '"') {
          skipString();
          continue;
        }
        if (source[i] === '{' || source[i] === '[') depth++;
        if (source[i] === '}' || source[i] === ']') depth--;
        i++;
      } while (depth > 0 && i < source.length);
      return;
    }
    while (i < source.length && !/[,}\]\s]/.test(source[i]!)) i++;
  };
  ws();
  if (source[i] !== '{') return undefined;
  i++;
  for (;;) {
    ws();
    if (source[i] !== '"') return undefined;
    const keyStart = i;
    skipString();
    const name = JSON.parse(source.slice(keyStart, i)) as string;
    ws();
    if (source[i] !== ':') return undefined;
    i++;
    ws();
    const start = i;
    skipValue();
    if (name === key) return source.slice(start, i).trim();
    ws();
    if (source[i] !== ',') return undefined;
    i++;
  }
}

function brief(res: WireResponse): unknown {
  return { status: res.status, contentType: res.headers['content-type'], body: res.json ?? res.messages ?? res.text.slice(0, 300) };
}

/** What a well-formed JSON-RPC response lacks (JSON-RPC 2.0 §5, §5.1), or undefined. */
function malformed(m: unknown): string | undefined {
  if (!isObject(m)) return 'the message is not a JSON object';
  if (m.jsonrpc !== '2.0') return `"jsonrpc" is ${JSON.stringify(m.jsonrpc)}, not "2.0"`;
  if (('result' in m) === ('error' in m)) return 'it has both or neither of result and error';
  if ('error' in m && !(isObject(m.error) && Number.isInteger(m.error.code) && typeof m.error.message === 'string')) return 'error is not {code: integer, message: string}';
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------

interface Setup {
  key: string | null;
  revisions: (Revision | undefined)[];
}

/** A live key of the check's own (no rate limit on the embedded target), and the revisions to send under. */
async function setup(c: CheckContext, purpose: string): Promise<Setup> {
  // These envelopes are the 2025-era wire's (a 2026-07-28 server refuses any without its per-request _meta
  // first); that revision's envelope rules are the scenario rows' to check.
  if (c.target.revisions.length > 0 && c.target.revisions.every((r) => r === MODERN)) {
    c.notTestable(`the envelope properties send 2025-era JSON-RPC envelopes; the target speaks only ${MODERN}, where every request must carry the _meta envelope`);
  }
  const key = c.target.admin || c.target.canBootstrap || c.target.apiKey ? await freshKey(c, purpose) : null;
  const live = await c.mcp.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key });
  c.verify(live.status === 200 && isObject(responsesOf(live)[0]?.result), 'tools/list with the key works', 200, brief(live));
  // No header (the server assumes 2025-03-26), or a 2025-era revision the target negotiates.
  return { key, revisions: [undefined, ...c.target.revisions.filter((r) => r !== MODERN)] };
}

/**
 * POSTs a body; a reply that does not come within the deadline fails the run (the property's time box would
 * otherwise end the search on it silently).
 */
async function post(c: CheckContext, s: Setup, body: string, revision: string | undefined): Promise<WireResponse> {
  try {
    return await c.mcp.post(undefined, { key: s.key, raw: body, timeoutMs: REPLY_DEADLINE_MS, headers: revision ? { 'mcp-protocol-version': revision } : {} });
  } catch (err) {
    return c.verify(false, `${body}${revision ? ` (MCP-Protocol-Version: ${revision})` : ''} is answered within ${REPLY_DEADLINE_MS} ms`, 'a reply', (err as Error).message) as never;
  }
}

/** An integer of the same sign, unique to item `i` of a batch (never -0, which JSON writes as 0). */
function uniqueInteger(v: number, i: number): number {
  const n = 10 * (Math.abs(v) % 100_000) + i;
  return v < 0 && n !== 0 ? -n : n;
}

const sent = (revisions: (Revision | undefined)[]) => fc.record({ envelope: envelopeArb, revision: fc.constantFrom(...revisions) });

/** One envelope sent and answered: what the judges of the envelope properties look at. */
interface Exchanged { envelope: Envelope; what: Classified; res: WireResponse; responses: any[]; label: string }

/** An envelope property: its own key, a generated envelope sent under a generated revision, the reply judged. */
async function envelopeProperty(c: CheckContext, id: string, judge: (x: Exchanged) => void, kinds?: Kind[]): Promise<void> {
  const s = await setup(c, id);
  await c.property({
    id,
    arbitrary: kinds ? sent(s.revisions).filter(({ envelope }) => kinds.includes(classify(envelope).kind)) : sent(s.revisions),
    maxRuns: MAX_RUNS,
    show: ({ envelope, revision }) => show(envelope, revision),
    predicate: async ({ envelope, revision }) => {
      const res = await post(c, s, bodyOf(envelope), revision);
      judge({ envelope, what: classify(envelope), res, responses: responsesOf(res), label: show(envelope, revision) });
    },
  });
}

describe.concurrent('jsonrpc properties', () => {
  // RFC 9110 §15.6: "The 5xx (Server Error) class of status code indicates that the server is aware that it has
  // erred". MCP server/tools (TOOL-12): servers MUST validate inputs: bad input is a client error, never a 5xx.
  check('jsonrpc-no-5xx', 'property: no envelope, however malformed, gets a 5xx', async (c) => {
    const s = await setup(c, 'jsonrpc-envelope-no-5xx');
    // Envelopes, and sometimes their text cut short (not JSON at all).
    const body = (v: { envelope: Envelope; cut: number | null }) => (v.cut === null ? bodyOf(v.envelope) : bodyOf(v.envelope).slice(0, v.cut % bodyOf(v.envelope).length));
    const label = (v: { envelope: Envelope; cut: number | null; revision?: string }) => `${body(v)}${v.revision ? ` (MCP-Protocol-Version: ${v.revision})` : ''}`;
    await c.property({
      id: 'jsonrpc-envelope-no-5xx',
      arbitrary: fc.record({ envelope: envelopeArb, revision: fc.constantFrom(...s.revisions), cut: fc.option(fc.nat(), { freq: 4 }) }),
      maxRuns: MAX_RUNS,
      show: label,
      predicate: async (v) => {
        const res = await post(c, s, body(v), v.revision);
        c.verify(res.status < 500, `${label(v)} is not answered with a server error`, '< 500', brief(res));
      },
    });
  }, { generic: true });

  // "id: This member is REQUIRED. It MUST be the same as the value of the id member in the Request Object.
  // If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null."
  check('jsonrpc-id-echo', 'property: the reply id is exactly the request id (value and type), or null when the request is invalid', async (c) => {
    await envelopeProperty(c, 'jsonrpc-envelope-ids', ({ envelope, what, res, responses, label }) => {
      if (what.kind === 'request') {
        c.verify(responses.length === 1, `${label}: one response`, 1, brief(res));
        const id = responses[0]!.id;
        // A request with members JSON-RPC does not define, or with by-position params (MCP names every param), may be
        // refused as invalid (as the kinds property allows), and "If there was an error in detecting the id in the
        // Request object (e.g. Parse error/Invalid Request), it MUST be Null."
        const refusedAsInvalid = (envelope.extras.length > 0 || Array.isArray(envelope.params?.value)) && 'error' in responses[0]! && id === null;
        c.verify(refusedAsInvalid || isDeepStrictEqual(id, what.id), `${label}: the response id is the request id, same value and type`, what.id, id);
      } else if (what.kind === 'big-id-request') {
        const raw = res.json !== undefined ? rawMember(res.text, 'id') : undefined;
        const id = responses[0]?.id;
        c.verify(id === null || id === undefined || raw === what.id, `${label}: an id beyond 2^53 is echoed digit for digit, or the request refused with id null`, `${what.id} or null`, raw ?? id);
      } else {
        for (const m of responses) {
          if (!('id' in m) || m.id === null) continue;
          c.verify((typeof what.id === 'string' || typeof what.id === 'number') && isDeepStrictEqual(m.id, what.id), `${label} (${what.kind}): a reply id that is not null is the request id`, what.id ?? null, m.id);
        }
      }
    });
  }, { generic: true });

  // "jsonrpc: ... MUST be exactly "2.0"." "Either the result member or error member MUST be included, but both
  // members MUST NOT be included." "code: ... MUST be an integer. message: A String".
  check(['jsonrpc-result-xor-error', 'jsonrpc-version-member', 'jsonrpc-error-object'], 'property: every reply message is a well-formed JSON-RPC response', async (c) => {
    await envelopeProperty(c, 'jsonrpc-envelope-shape', ({ what, res, responses, label }) => {
      if (what.kind === 'request' || what.kind === 'invalid') c.verify(responses.length > 0, `${label}: the reply carries a JSON-RPC response`, 'a response', brief(res));
      for (const m of responses) {
        // A 4xx for a notification may carry a JSON-RPC error (or another body): judge what looks like JSON-RPC.
        if (!(isObject(m) && ('jsonrpc' in m || 'result' in m || 'error' in m || 'id' in m))) continue;
        const problem = malformed(m);
        c.verify(problem === undefined, `${label}: ${problem}`, { jsonrpc: '2.0', id: '...', 'result | error': { code: 'integer', message: 'string' } }, m);
      }
    });
  }, { generic: true });

  // "-32600 Invalid Request: The JSON sent is not a valid Request object." "-32601 Method not found."
  // Notifications: "If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no
  // body." "If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)."
  // One property per rule, so that a counterexample of one rule (an invalid request refused with the wrong code)
  // fails that rule's rows only, not every rule the envelopes exercise.
  const kindRules: [string[], Kind[], string][] = [
    [['jsonrpc-invalid-request'], ['invalid'], 'jsonrpc-envelope-invalid'],
    [['jsonrpc-notification-202', 'jsonrpc-invalid-notification-4xx'], ['notification', 'response'], 'jsonrpc-envelope-notifications'],
    [['jsonrpc-method-not-found'], ['request'], 'jsonrpc-envelope-requests'],
  ];
  for (const [ids, kinds, propertyId] of kindRules) {
    check(ids, `property: each envelope of kind ${kinds.join(' or ')} gets the answer its kind calls for`, async (c) => {
      await envelopeProperty(c, propertyId, ({ envelope, what, res, responses, label: sentLabel }) => {
        const label = `${sentLabel} (${what.kind}${what.defects.length ? `: ${what.defects.join('; ')}` : ''})`;
        const method = envelope.method?.value;
        const params = envelope.params?.value;
        switch (what.kind) {
          case 'notification':
          case 'response': {
            const accepted = res.status === 202 && res.text === '';
            // "The HTTP response body MAY comprise a JSON-RPC error response that has no `id`" (an echoed id is tolerated).
            const refused = res.status >= 400 && res.status < 500 && responses.every((m) => !('result' in m) && (!('id' in m) || m.id === null || isDeepStrictEqual(m.id, what.id)));
            c.verify(accepted || refused, `${label}: 202 with no body, or a 4xx (never a response)`, '202 and no body, or 4xx', brief(res));
            // Every server accepts notifications/initialized; nothing about it can be refused (but members JSON-RPC does
            // not define, as for requests below).
            if (method === 'notifications/initialized' && envelope.extras.length === 0 && (params === undefined || isDeepStrictEqual(params, {}))) c.verify(accepted, `${label}: 202 with no body`, { status: 202, body: '' }, brief(res));
            break;
          }
          case 'invalid': {
            c.verify(res.status !== 202 && res.status < 500, `${label}: an error reply (not 202, not a 5xx)`, '4xx or 200 with an error', brief(res));
            if (envelope.id === undefined && envelope.method !== undefined) c.verify(res.status >= 400, `${label}: a malformed message without an id gets an HTTP 4xx`, '4xx', brief(res));
            const m = responses[0];
            const codes = what.defects.every((d) => d.startsWith('"params"')) ? [-32600, -32602] : [-32600];
            c.verify(responses.length === 1 && isObject(m) && !('result' in m) && codes.includes(m.error?.code), `${label}: one JSON-RPC error ${codes.join(' or ')}`, { error: { code: codes[0] } }, brief(res));
            break;
          }
          case 'request': {
            c.verify(res.status !== 202, `${label}: a request gets a response, not 202`, 'a response', brief(res));
            // JSON-RPC says nothing of other members: a request carrying one may be served or refused (-32600; -32700,
            // wrong for valid JSON, is jsonrpc-invalid-request's business, not a method lookup).
            const refusedForExtras = envelope.extras.length > 0 && responses.length === 1 && [-32600, -32700].includes(responses[0]?.error?.code);
            if (typeof method === 'string' && method.startsWith(UNKNOWN_PREFIX) && !Array.isArray(params) && !refusedForExtras) {
              c.verify(responses[0]?.error?.code === -32601, `${label}: an unknown method gets -32601`, { error: { code: -32601 } }, brief(res));
            }
            break;
          }
          default:
            break;
        }
      }, kinds);
    }, { generic: true });
  }

  // "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches."
  // JSON-RPC §6: "The Server should respond with an Array containing the corresponding Response objects";
  // "If there are no Response objects contained within the Response array ... the server MUST NOT return an
  // empty Array and should return nothing at all"; an empty Array gets a single Response object.
  check('jsonrpc-batch-2025-03-26', 'property: under 2025-03-26 a batch gets one response per request and per invalid item, none for notifications', async (c) => {
    const s = await setup(c, 'jsonrpc-batches');
    // Unique ids across a batch, so each response names its item; items of a kind with one sure answer (a
    // notification with by-position params may be answered as an invalid MCP message or not at all).
    const item = envelopeArb.filter((e) => ['request', 'notification', 'invalid'].includes(classify(e).kind) && !(classify(e).kind === 'notification' && Array.isArray(e.params?.value)));
    const batch = fc.oneof(
      { weight: 1, arbitrary: fc.constant([] as Envelope[]) },
      { weight: 9, arbitrary: fc.array(item, { minLength: 1, maxLength: 4 }) },
    ).map((items) => items.map((e, i) => (e.id !== undefined && (typeof e.id.value === 'string' || typeof e.id.value === 'number') && e.id.raw === undefined
      ? { ...e, id: slot(typeof e.id.value === 'string' ? `${e.id.value}#${i}` : Number.isInteger(e.id.value) ? uniqueInteger(e.id.value, i) : i + 0.5) }
      : e)));
    const label = (items: Envelope[]) => `[${items.map(bodyOf).join(',')}]`;
    await c.property({
      id: 'jsonrpc-batches',
      arbitrary: batch,
      maxRuns: MAX_RUNS,
      show: label,
      predicate: async (items) => {
        const res = await post(c, s, label(items), BATCH_REVISION);
        const what = items.map(classify);
        c.verify(res.status < 500, `${label(items)}: not a server error`, '< 500', brief(res));
        if (items.length === 0) {
          c.verify(isObject(res.json) && res.json.error?.code === -32600 && (res.json.id ?? null) === null, 'an empty batch gets one -32600 error with id null (not an array)', { id: null, error: { code: -32600 } }, brief(res));
          return;
        }
        const requests = what.filter((w) => w.kind === 'request');
        const invalid = what.filter((w) => w.kind === 'invalid');
        if (requests.length + invalid.length === 0) {
          c.verify(res.status === 202 && res.text === '', `${label(items)}: a batch of notifications only gets 202 and no body`, { status: 202, body: '' }, brief(res));
          return;
        }
        c.verify(res.messages !== undefined || Array.isArray(res.json), `${label(items)}: the reply is an array of responses (or a stream of them)`, 'an array', brief(res));
        const responses = responsesOf(res);
        for (const m of responses) c.verify(malformed(m) === undefined, `${label(items)}: ${malformed(m)}`, 'a well-formed response', m);
        c.verify(responses.length === requests.length + invalid.length, `${label(items)}: one response per request and per invalid item, none for notifications`, requests.length + invalid.length, responses);
        for (const r of requests) {
          c.verify(responses.filter((m) => isDeepStrictEqual(m.id, r.id)).length === 1, `${label(items)}: exactly one response has request id ${JSON.stringify(r.id)}`, r.id, responses.map((m) => m.id));
        }
        const errorsForInvalid = responses.filter((m) => !requests.some((r) => isDeepStrictEqual(m.id, r.id)));
        for (const m of errorsForInvalid) {
          c.verify(m.error?.code === -32600 || m.error?.code === -32602, `${label(items)}: an invalid item gets an Invalid Request error`, { error: { code: -32600 } }, m);
        }
      },
    });
  }, { generic: true });
});
