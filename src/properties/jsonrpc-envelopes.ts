import fc from 'fast-check';
import { isObject } from '../mcp/tool-result.js';

/**
 * JSON-RPC envelopes as the envelope properties (suites/properties/jsonrpc.suite.ts) generate them: ids of every
 * JSON type, members missing, extra or of the wrong type, wrong `jsonrpc`, unknown methods, notifications, stray
 * responses, and batches of them; and what JSON-RPC 2.0 and MCP make of each (its kind).
 */

/** Methods under this prefix exist nowhere: a request for one must get -32601. */
export const UNKNOWN_PREFIX = 'conformance/';

// ---------------------------------------------------------------------------------------------------------
// Envelopes: each member present with a value (as JSON text, so ids beyond 2^53 go out exactly), or absent.

export interface Slot {
  value: unknown;
  /** JSON text of the value when JSON.stringify would not write it exactly (integers beyond 2^53). */
  raw?: string;
}

export interface Envelope {
  jsonrpc?: Slot;
  id?: Slot;
  method?: Slot;
  params?: Slot;
  extras: [string, Slot][];
}

const slot = (value: unknown): Slot => ({ value });
const text = (s: Slot) => s.raw ?? JSON.stringify(s.value);

export function bodyOf(e: Envelope): string {
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

export const envelopeArb: fc.Arbitrary<Envelope> = fc.record({ jsonrpc: jsonrpcArb, id: idArb, method: methodArb, params: paramsArb, extras: extrasArb });

// ---------------------------------------------------------------------------------------------------------
// What each envelope is, by JSON-RPC 2.0 §4-§5 and MCP basic/index (ids are strings or integers, never null).

export type Kind =
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

export interface Classified {
  kind: Kind;
  /** The request id a response must carry exactly (requests), or may echo (invalid ones). */
  id?: unknown;
  /** Why it is invalid. */
  defects: string[];
}

const validId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

export function classify(e: Envelope): Classified {
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

/** An envelope as sent, for labels and counterexamples. */
export function showEnvelope(e: Envelope, revision?: string): string {
  return `${bodyOf(e)}${revision ? ` (MCP-Protocol-Version: ${revision})` : ''}`;
}

/** An integer of the same sign, unique to item `i` of a batch (never -0, which JSON writes as 0). */
function uniqueInteger(v: number, i: number): number {
  const n = 10 * (Math.abs(v) % 100_000) + i;
  return v < 0 && n !== 0 ? -n : n;
}

/**
 * Batch items: kinds with one sure answer (a notification with by-position params may be answered as an invalid
 * MCP message or not at all).
 */
const batchItemArb = envelopeArb.filter((e) => ['request', 'notification', 'invalid'].includes(classify(e).kind) && !(classify(e).kind === 'notification' && Array.isArray(e.params?.value)));

/** Batches of envelopes (1 in 10 empty) with unique ids across a batch, so each response names its item. */
export const batchArb: fc.Arbitrary<Envelope[]> = fc.oneof(
  { weight: 1, arbitrary: fc.constant([] as Envelope[]) },
  { weight: 9, arbitrary: fc.array(batchItemArb, { minLength: 1, maxLength: 4 }) },
).map((items) => items.map((e, i) => (e.id !== undefined && (typeof e.id.value === 'string' || typeof e.id.value === 'number') && e.id.raw === undefined
  ? { ...e, id: slot(typeof e.id.value === 'string' ? `${e.id.value}#${i}` : Number.isInteger(e.id.value) ? uniqueInteger(e.id.value, i) : i + 0.5) }
  : e)));
