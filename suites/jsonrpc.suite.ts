import { type CheckContext, defineSuite } from '../src/engine/check.js';
import { finalMessage } from '../src/mcp/mcp-session.js';
import { isObject } from '../src/mcp/tool-result.js';
import { passedDeadline, type WireResponse } from '../src/wire/client.js';
import { withOwnSessions, type OwnSessions } from '../src/targets/own-sessions.js';
import type { Revision } from '../src/catalog/types.js';
import { rawMember } from '../src/properties/jsonrpc-replies.js';
import { isJsonRpc } from '../src/judging/wire-judge.js';
// A JSON-RPC response: an object with a result or an error (a serialized exception is none).
import { isResponse } from '../src/mcp/stream-reading.js';

const { check, describe, seal } = defineSuite('jsonrpc');


/** Integer ids that a float64 (beyond 2^53) or an int64 (beyond 2^63) cannot hold exactly. */
const BEYOND_FLOAT64_IDS = ['9007199254740993', '-9007199254740995', '9223372036854775296'];

const MODERN = '2026-07-28';
const NO_SUCH_METHOD = 'conformance/no-such-method';
/**
 * The pair "0" and 0 sent at once this many times a round, each pair in a session of its own (jsonrpc-id-echo), and
 * how many rounds at most: 8 requests a round. Zero, so that a server turning only non-zero numeric strings into
 * numbers stays the envelope property's to find (mutant numeric-string-id-as-number).
 */
const SAME_VALUE_PAIRS = 4;
const SAME_VALUE_ROUNDS = 3;

/** Every JSON-RPC message of a reply: the JSON body (or batch), or each SSE message. */
function messages(res: WireResponse): any[] {
  // An SSE event with empty data carries no message: 2025-11-25's priming event is "an event ID and an empty data field".
  if (res.messages) return res.messages.filter((_, i) => res.events?.[i]?.data !== '');
  if (Array.isArray(res.json)) return res.json;
  return res.json === undefined ? [] : [res.json];
}

/** POSTs raw text with the target's headers (plus `headers`). */
function raw(c: CheckContext, text: string, headers: Record<string, string> = {}): Promise<WireResponse> {
  return c.mcp.post(undefined, { raw: text, headers });
}

/** The target's headers without any MCP-Protocol-Version (a `--header` could have set one). */
function headersWithoutVersion(c: CheckContext): Record<string, string> {
  return Object.fromEntries(Object.entries(c.mcp.headers()).filter(([k]) => k.toLowerCase() !== 'mcp-protocol-version'));
}

/** A spread of replies: success, method not found, unknown tool, invalid params, parse error, invalid request. */
async function sampleReplies(c: CheckContext): Promise<{ label: string; res: WireResponse }[]> {
  const probes: [string, () => Promise<WireResponse>][] = [
    ['tools/list', () => c.mcp.request('tools/list', undefined, { id: c.run.ids.named('sample') })],
    [NO_SUCH_METHOD, () => c.mcp.request(NO_SUCH_METHOD, {}, { id: c.run.ids.named('sample') })],
    ['tools/call of an unknown tool', () => c.mcp.call('conformance.no-such-tool', {}, { id: c.run.ids.named('sample') })],
    ['tools/call without a name', () => c.mcp.request('tools/call', {}, { id: c.run.ids.named('sample') })],
    ['invalid JSON', () => raw(c, '{"jsonrpc": "2.0", "id": 5, "method": ')],
    ['{"foo":1}', () => raw(c, '{"foo":1}')],
  ];
  return Promise.all(probes.map(async ([label, send]) => ({ label, res: await send() })));
}

const idIsNull = (msg: any) => !('id' in msg) || msg.id === null;

describe('jsonrpc', () => {
  // "The 5xx (Server Error) class of status code indicates that the server is aware that it has erred" (RFC 9110
  // §15.6); a tools/call whose params are missing or of the wrong type is the client's error ("-32602 Invalid
  // params", JSON-RPC 2.0 §5.1). Always sent, whatever the seed: a server that throws on these shapes is found
  // every run (every other malformed message of the run is judged too: src/wire/server-errors.ts).
  // A response to no request the server sent is "unexpected" input as well (MCP: "an HTTP error status code").
  check({ ids: 'jsonrpc-no-5xx', name: 'tools/call without params, with params null and with params [], and a stray response: never a 5xx', generic: true, run: async (c) => {
    const shapes: [string, Record<string, unknown>][] = [
      ['tools/call without params', { method: 'tools/call' }],
      ['tools/call with params null', { method: 'tools/call', params: null }],
      ['tools/call with params []', { method: 'tools/call', params: [] }],
      ['a response to no request the server sent', { result: {} }],
    ];
    const sent = await Promise.all(shapes.map(async ([label, extra]) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: c.run.ids.named('params-shape'), ...extra });
      try {
        return { label, body, res: await raw(c, body) };
      } catch (err) {
        // The harness's deadline is its own choice: a reply that did not come in time proves no server error.
        if (passedDeadline(err)) return { label, body, res: undefined };
        throw err;
      }
    }));
    const replies = sent.filter((x): x is typeof x & { res: WireResponse } => x.res !== undefined);
    for (const { label, res } of replies) c.verify(res.status < 500, `${label} is answered with HTTP ${res.status}, a server error`, 'a 4xx or a JSON-RPC error, never a 5xx', c.brief(res));
    c.observe(replies.map(({ label, res }) => `${label}: HTTP ${res.status}`).join('; '));
    const unanswered = sent.find((x) => x.res === undefined);
    if (unanswered) c.notTestable(`${unanswered.body} was not answered within ${c.settings.timeoutMs} ms, the harness's deadline: a slow reply proves no protocol error`);
  } });

  // "-32700 Parse error: Invalid JSON was received by the server." "If there was an error in detecting the id ... it MUST be Null."
  check({ ids: 'jsonrpc-parse-error', name: 'invalid JSON gets -32700 with id null and an HTTP 4xx', generic: true, run: async (c) => {
    for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": "tools/list"', '{bad json}']) {
      const res = await raw(c, body);
      c.verify(res.status >= 400 && res.status < 500, `invalid JSON ${JSON.stringify(body)} gets an HTTP 4xx (not a 5xx, not a success)`, 400, c.brief(res));
      if (res.status !== 400) c.observe(`invalid JSON got HTTP ${res.status} (400 is usual)`);
      const msg = res.json;
      c.verify(isObject(msg) && isObject(msg.error) && !('result' in msg), 'the body is a JSON-RPC error', { jsonrpc: '2.0', id: null, error: { code: -32700 } }, c.brief(res));
      c.verify(idIsNull(msg), 'the id of a parse error is null', null, msg.id);
    }
  } });

  // "-32600 Invalid Request: The JSON sent is not a valid Request object." MCP: "Requests MUST include a string or integer ID"; "the ID MUST NOT be null".
  check({ ids: 'jsonrpc-invalid-request', name: 'valid JSON that is not a valid request gets -32600', generic: true, run: async (c) => {
    const [wrongVersion, fractional] = [c.run.ids.next(), c.run.ids.next() + 0.5];
    const bodies: [string, (string | number | null)[]][] = [
      ['{"foo":1}', [null]],
      [`{"jsonrpc":"1.0","id":${wrongVersion},"method":"tools/list"}`, [null, wrongVersion]],
      ['{"jsonrpc":"2.0","id":null,"method":"tools/list"}', [null]],
      [`{"jsonrpc":"2.0","id":${fractional},"method":"tools/list"}`, [null, fractional]],
      ['42', [null]],
      ['"tools/list"', [null]],
      ['[]', [null]],
    ];
    const replies = await Promise.all(bodies.map(async ([body]) => raw(c, body)));
    bodies.forEach(([body, ids], i) => {
      const res = replies[i]!;
      c.verify(res.status < 500 && res.status !== 202, `${body} gets an error reply (not a 5xx, not 202)`, '4xx or 200 with an error', c.brief(res));
      const msg = res.json;
      c.verify(isObject(msg) && !('result' in msg) && isObject(msg.error), `${body} gets a single JSON-RPC error`, { jsonrpc: '2.0', id: ids[0], error: { code: -32600 } }, c.brief(res));
      c.verify(idIsNull(msg) || ids.includes(msg.id), `the error's id is ${ids.map((x) => JSON.stringify(x)).join(' or ')}`, ids, msg.id);
    });
    c.observe(`HTTP statuses: ${replies.map((r) => r.status).join(', ')}`);
  } });

  // "-32601 Method not found: The method does not exist / is not available."
  check({ ids: 'jsonrpc-method-not-found', name: 'an unknown method gets -32601 with the request id', generic: true, run: async (c) => {
    const id = c.run.ids.named('nf');
    const res = await c.mcp.request(NO_SUCH_METHOD, {}, { id });
    const msg = finalMessage(res);
    c.verify(res.status < 500, 'an unknown method is not a server error', '< 500', c.brief(res));
    c.verify(isObject(msg) && isObject(msg.error) && !('result' in msg), 'an unknown method gets a JSON-RPC error', { id, error: { code: -32601 } }, c.brief(res));
    c.verify(msg.id === id, 'the error carries the request id', id, msg.id);
    c.observe(`unknown method: HTTP ${res.status}`);
  } });

  // "-32602 Invalid params: Invalid method parameter(s)." MCP: protocol errors for requests that fail the CallToolRequest schema.
  // JSON-RPC defines the codes; it demands an error Response. Which code (-32602, not -32603) is
  // jsonrpc-standard-error-codes's to judge, at its level (SHOULD).
  check({ ids: 'jsonrpc-invalid-params', name: 'tools/call with malformed params gets a JSON-RPC error, not a result', generic: true, run: async (c) => {
    const probes: [string, Record<string, unknown>][] = [['no name', {}], ['a numeric name', { name: 42, arguments: {} }]];
    await Promise.all(probes.map(async ([label, params]) => {
      const id = c.run.ids.named('ip');
      const res = await c.mcp.request('tools/call', params, { id });
      const msg = finalMessage(res);
      c.verify(res.status < 500, `tools/call with ${label} is not a server error`, '< 500', c.brief(res));
      c.verify(isObject(msg) && isObject(msg.error) && !('result' in msg), `tools/call with ${label} gets a JSON-RPC error (not a result)`, { id, error: { code: -32602 } }, c.brief(res));
    }));
  } });

  // "The error codes from and including -32768 to -32000 are reserved for pre-defined errors." Each fault gets
  // its defined code; the MUST rows above only demand an error, so a generic server's other code is a warning.
  check({ ids: 'jsonrpc-standard-error-codes', name: 'each protocol fault gets its JSON-RPC code: -32700, -32600, -32601, -32602', generic: true, run: async (c) => {
    const probes: { label: string; code: number; send: () => Promise<WireResponse> }[] = [
      { label: 'invalid JSON', code: -32700, send: () => raw(c, '{bad json}') },
      { label: 'a request without "method"', code: -32600, send: () => raw(c, JSON.stringify({ jsonrpc: '2.0', id: c.run.ids.named('sc') })) },
      { label: 'an unknown method', code: -32601, send: () => c.mcp.request(NO_SUCH_METHOD, {}, { id: c.run.ids.named('sc') }) },
      { label: 'tools/call without a name', code: -32602, send: () => c.mcp.request('tools/call', {}, { id: c.run.ids.named('sc') }) },
      { label: 'tools/call of an unknown tool', code: -32602, send: () => c.mcp.call('conformance.no-such-tool', {}) },
    ];
    const replies = await Promise.all(probes.map((p) => p.send()));
    probes.forEach((p, i) => {
      const msg = finalMessage(replies[i]!);
      c.verify(isObject(msg) && msg.error?.code === p.code, `${p.label} gets error code ${msg?.error?.code ?? '(none)'}, not ${p.code}`, { error: { code: p.code } }, c.brief(replies[i]!));
    });
  } });

  // "id: This member is REQUIRED. It MUST be the same as the value of the id member in the Request Object."
  check({ ids: 'jsonrpc-id-echo', name: 'the reply id equals the request id, in value and type', generic: true, run: async (c) => {
    // These ids are the check's subject, and 0 is sent twice: each goes to a session where it is new.
    const send = async (own: OwnSessions, method: string, params: Record<string, unknown> | undefined, id: string | number) => ({
      id, res: await c.mcp.request(method, params, { id, headers: await own.headersFor({ id, method }, c.mcp.revision) }),
    });
    const ids: (string | number)[] = ['abc', '', '0', 0, 42, -7, Number.MAX_SAFE_INTEGER];
    // Integers beyond 2^53 and 2^63, written exactly: always sent here, so a server that echoes them through a
    // float64 or an int64 fails every run, not only the runs whose envelope search happened to draw one.
    const sendRaw = async (own: OwnSessions, raw: string) => ({
      raw, res: await c.mcp.post(undefined, { raw: `{"jsonrpc":"2.0","id":${raw},"method":"tools/list"}`, headers: await own.headersFor({ id: Number(raw), method: 'tools/list' }, c.mcp.revision) }),
    });
    const [results, exact] = await withOwnSessions(c.run, c.target, (own) => Promise.all([
      Promise.all([...ids.map((id) => send(own, 'tools/list', undefined, id)), ...['e-1', 0].map((id) => send(own, NO_SUCH_METHOD, {}, id))]),
      Promise.all(BEYOND_FLOAT64_IDS.map((raw) => sendRaw(own, raw))),
    ]));
    // Ids of one value and two types ("0" and 0) are two ids: a server that files its requests in flight by the id's
    // text loses one of the two, but only while both are in flight. Sent in pairs, all at once (a pair per session),
    // and again (a few rounds at most) until a reply is lost or every round is echoed right: found whatever the timing.
    const wrong = (sent: { id: string | number; res: WireResponse }[]) => sent.some(({ id, res }) => (isResponse(finalMessage(res)) ? finalMessage(res).id !== id : res.status < 400));
    for (let round = 0; round < SAME_VALUE_ROUNDS && !wrong(results); round++) {
      const pairs = Array.from({ length: SAME_VALUE_PAIRS }, (): (string | number)[] => ['0', 0]).flat();
      results.push(...await withOwnSessions(c.run, c.target, (own) => Promise.all(pairs.map((id) => send(own, 'tools/list', undefined, id)))));
    }
    let judged = 0;
    for (const { id, res } of results) {
      const msg = finalMessage(res);
      // Refused at the HTTP level without a JSON-RPC response (a serialized exception is none): no id to judge (the
      // refusal is other rows' business). Accepted and never answered: the id the server "MUST reply with" is missing.
      if (res.status >= 400 && !isResponse(msg)) continue;
      judged += 1;
      c.verify(isObject(msg) && msg.id === id, `request id ${JSON.stringify(id)} (${typeof id}) is echoed unchanged`, id, isObject(msg) ? msg.id : c.brief(res));
    }
    for (const { raw, res } of exact) {
      const text = res.events ? res.events.at(-1)?.data ?? '' : res.text;
      if (res.status >= 400 && !isResponse(finalMessage(res))) continue;
      judged += 1;
      // As the envelope property judges it: digit for digit, or the request refused with id null ("If there was an
      // error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null").
      const echoed = rawMember(text.trim(), 'id');
      c.verify(echoed === raw || echoed === 'null', `request id ${raw} (an integer beyond 2^53) is echoed digit for digit, or refused with id null`, `${raw} or null`, echoed ?? c.brief(res));
    }
    if (judged === 0) c.notTestable('every probe was refused at the HTTP level without a JSON-RPC response: no reply id to judge');
  } });

  // "Either the result member or error member MUST be included, but both members MUST NOT be included."
  check({ ids: 'jsonrpc-result-xor-error', name: 'every response has exactly one of result and error', generic: true, run: async (c) => {
    let seen = 0;
    for (const { label, res } of await sampleReplies(c)) {
      for (const msg of messages(res).filter((m) => isResponse(m) || (isObject(m) && 'jsonrpc' in m && 'id' in m && !('method' in m)))) {
        seen += 1;
        c.verify(('result' in msg) !== ('error' in msg), `${label}: the response has exactly one of result and error`, 'result xor error', msg);
      }
    }
    // No response at all proves nothing: the requests sent were owed one each.
    c.verify(seen > 0, 'the replies carry no JSON-RPC response to judge', '>= 1 response', seen);
  } });

  // "jsonrpc: A String specifying the version of the JSON-RPC protocol. MUST be exactly "2.0"."
  check({ ids: 'jsonrpc-version-member', name: 'every message says "jsonrpc": "2.0"', generic: true, run: async (c) => {
    let seen = 0;
    for (const { label, res } of await sampleReplies(c)) {
      // A body that holds no JSON-RPC message (a serialized exception) says nothing of what a message says: a
      // response owed and not sent is the rows' of the input's own rule (parse error, invalid request, an id echoed).
      for (const msg of messages(res).filter(isJsonRpc)) {
        seen += 1;
        c.verify(msg.jsonrpc === '2.0', `${label}: the message has "jsonrpc": "2.0"`, '2.0', msg.jsonrpc);
      }
    }
    if (seen === 0) c.notTestable('no reply to the probes carried a JSON-RPC message to judge (the rows of each probe\'s own rule judge the missing responses)');
  } });

  // "code: ... This MUST be an integer. message: A String providing a short description of the error."
  check({ ids: 'jsonrpc-error-object', name: 'every error has an integer code and a string message', generic: true, run: async (c) => {
    let errors = 0;
    for (const { label, res } of await sampleReplies(c)) {
      for (const msg of messages(res).filter((m) => isObject(m) && 'error' in m && ('jsonrpc' in m || 'id' in m))) {
        errors += 1;
        c.verify(isObject(msg.error) && Number.isInteger(msg.error.code) && typeof msg.error.message === 'string', `${label}: error.code is an integer and error.message a string`, { code: 'integer', message: 'string' }, msg.error);
      }
    }
    c.verify(errors > 0, 'the probes drew JSON-RPC errors', '>= 1 error', errors);
  } });

  // "If the input is a JSON-RPC response or notification: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body."
  check({ ids: 'jsonrpc-notification-202', name: 'a notification gets 202 with no body', generic: true, run: async (c) => {
    const notifications = [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'conformance-none', reason: 'conformance probe' } },
    ];
    for (const n of notifications) {
      const res = await c.mcp.post(n);
      c.verify(res.status === 202 && res.text === '', `${n.method} gets 202 with an empty body`, { status: 202, body: '' }, { status: res.status, body: res.text.slice(0, 300) });
    }
    // A response to a request the server never sent: accepted (202, no body) or refused with an HTTP error.
    const res = await c.mcp.post({ jsonrpc: '2.0', id: 'conformance-r1', result: {} });
    // "an HTTP error status code": any 4xx or 5xx (a 5xx is jsonrpc-no-5xx's to judge).
    c.verify((res.status === 202 && res.text === '') || res.status >= 400, 'a stray JSON-RPC response gets 202 with no body, or an HTTP error status', '202 and no body, or an HTTP error status (4xx, 5xx)', { status: res.status, body: res.text.slice(0, 300) });
    c.observe(`a stray JSON-RPC response got HTTP ${res.status}`);
  } });

  // "If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request). The body MAY comprise a JSON-RPC error response that has no `id`."
  // A message with a method that is not a string is no notification at all: nothing a server can accept. A
  // notification with bad params may be accepted (JSON-RPC: "the Client would not be aware of any errors (like
  // e.g. "Invalid params")"): the MUST binds only when the server refuses it.
  // "An HTTP error status code" is any 4xx or 5xx: the row's id says 4xx, and a 5xx is judged by jsonrpc-no-5xx.
  check({ ids: 'jsonrpc-invalid-notification-4xx', name: 'a malformed notification gets an HTTP error status', generic: true, run: async (c) => {
    for (const [body, mayAccept] of [['{"jsonrpc":"2.0","method":5}', false], ['{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}', true]] as const) {
      const res = await raw(c, body);
      if (mayAccept && res.status === 202 && res.text === '') {
        c.observe(`${body} was accepted (202): the server did not refuse it, so the rule does not bind`);
        continue;
      }
      c.verify(res.status >= 400, `${body} gets an HTTP error status${mayAccept ? ' (or is accepted with 202 and no body)' : ''}`, mayAccept ? 'an HTTP error status, or 202 with no body' : 'an HTTP error status (4xx, 5xx)', c.brief(res));
      // "The HTTP response body MAY comprise a JSON-RPC error response that has no `id`": a body that is one is judged.
      if (isJsonRpc(res.json)) {
        c.verify(isObject(res.json) && isObject(res.json.error) && !('result' in res.json) && idIsNull(res.json), 'a JSON body is a JSON-RPC error without an id (or id null)', { jsonrpc: '2.0', id: null, error: {} }, res.json);
      }
    }
  } });

  // "If the input is a JSON-RPC request, the server MUST either return `Content-Type: text/event-stream` ... or `Content-Type: application/json`."
  check({ ids: 'jsonrpc-request-reply-media-type', name: 'replies to requests are application/json or text/event-stream', generic: true, run: async (c) => {
    const replies = await Promise.all([
      c.mcp.request('tools/list'),
      c.mcp.request(NO_SUCH_METHOD, {}),
      c.mcp.call('conformance.no-such-tool', {}),
    ]);
    for (const res of replies) {
      c.verify(res.mediaType === 'application/json' || res.mediaType === 'text/event-stream', 'the reply is application/json or text/event-stream', 'application/json or text/event-stream', res.headers['content-type'] ?? '(none)');
    }
  } });

  // "The client MUST include an `Accept` header, listing both `application/json` and `text/event-stream`." The server MUST then reply with one of them.
  check({ ids: 'jsonrpc-accept-both-served', name: 'a request accepting both reply types is served, however the Accept header lists them', generic: true, run: async (c) => {
    const accepts = ['application/json, text/event-stream', 'text/event-stream, application/json', 'application/json;q=0.9, text/event-stream;q=0.8', 'application/json,text/event-stream'];
    for (const accept of accepts) {
      const res = await c.mcp.request('tools/list', undefined, { headers: { accept } });
      c.verify(res.status === 200 && isObject(finalMessage(res)?.result), `Accept: ${accept} gets 200 and a result`, 200, c.brief(res));
    }
    for (const accept of ['text/html', 'application/json']) {
      const res = await c.mcp.request('tools/list', undefined, { headers: { accept } });
      c.observe(`Accept: ${accept} alone got HTTP ${res.status}${res.json?.error ? ` (${res.json.error.code})` : ''}`);
    }
  } });

  // "The 415 (Unsupported Media Type) status code indicates that the origin server is refusing to service the request because the content is in a format not supported".
  check({ ids: 'jsonrpc-content-type-non-json-rejected', name: 'a body sent as text/plain is refused with a 4xx', generic: true, run: async (c) => {
    const res = await c.mcp.post({ jsonrpc: '2.0', id: c.run.ids.next(), method: 'tools/list' }, { headers: { 'content-type': 'text/plain' } });
    c.verify(res.status >= 400 && res.status < 500, 'Content-Type: text/plain gets an HTTP 4xx', 415, c.brief(res));
    if (res.status !== 415) c.observe(`text/plain got ${res.status}; 415 Unsupported Media Type is the precise status`);
  } });

  // "No "charset" parameter is defined for this registration. Adding one really has no effect on compliant recipients."
  check({ ids: 'jsonrpc-content-type-parameters', name: 'application/json with a charset parameter, or in other case, is accepted', generic: true, run: async (c) => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
      const res = await c.mcp.request('tools/list', undefined, { headers: { 'content-type': type } });
      c.verify(res.status === 200 && isObject(finalMessage(res)?.result), `Content-Type: ${type} is served`, 200, c.brief(res));
    }
  } });

  // The client MUST include `MCP-Protocol-Version: <protocol-version>` ... "allowing the MCP server to respond based on the MCP protocol version".
  check({ ids: 'jsonrpc-protocol-version-supported', name: 'every 2025-era revision the server negotiates is accepted in MCP-Protocol-Version', generic: true, run: async (c) => {
    const revisions = c.revision ? [c.revision] : c.target.revisions.filter((r) => r !== MODERN); // this run's revision
    // On a stateful server, in a session negotiated at that revision (the run's own speaks its newest).
    await withOwnSessions(c.run, c.target, async (own) => {
      for (const rev of revisions) {
        const body = { jsonrpc: '2.0', id: c.run.ids.next(), method: 'tools/list' };
        const res = await c.mcp.post(body, { headers: { ...(await own.headersFor(body, rev)), 'mcp-protocol-version': rev } });
        c.verify(res.status === 200 && isObject(finalMessage(res)?.result), `MCP-Protocol-Version: ${rev} (negotiated by initialize) is accepted`, 200, c.brief(res));
      }
    });
  } });

  // "If the server receives a request with an invalid or unsupported `MCP-Protocol-Version`, it MUST respond with `400 Bad Request`."
  check({ ids: 'jsonrpc-protocol-version-unsupported-400', name: 'an unsupported or invalid MCP-Protocol-Version gets 400', generic: true, run: async (c) => {
    for (const version of ['1999-01-01', 'not-a-version', '2025-13-45']) {
      const res = await c.mcp.request('tools/list', undefined, { headers: { 'mcp-protocol-version': version } });
      c.verify(res.status === 400, `MCP-Protocol-Version: ${version} gets 400 Bad Request`, 400, c.brief(res));
    }
  } });

  // "if the server does not receive an `MCP-Protocol-Version` header ... the server SHOULD assume protocol version `2025-03-26`."
  check({ ids: 'jsonrpc-protocol-version-absent', name: 'a request without MCP-Protocol-Version is served (as 2025-03-26)', generic: true, run: async (c) => {
    // A server that does not support 2025-03-26 refuses what it would have to assume.
    if (!c.target.revisions.includes('2025-03-26')) c.notApplicable(`not applicable: the target speaks ${c.target.revisions.join(', ') || 'no detected revision'}, not 2025-03-26, the revision a request without the header is assumed to speak`);
    const headers = headersWithoutVersion(c);
    const res = await c.http.request(c.target.mcpUrl, { method: 'POST', headers, json: { jsonrpc: '2.0', id: c.run.ids.named('nv'), method: 'tools/list' } });
    c.verify(res.status === 200 && isObject(finalMessage(res)?.result), 'tools/list without MCP-Protocol-Version is served', 200, c.brief(res));
    // Batches exist only in 2025-03-26: whether one is answered without the header hints at the revision assumed.
    const batch = await c.http.request(c.target.mcpUrl, { method: 'POST', headers, json: [{ jsonrpc: '2.0', id: c.run.ids.named('nv'), method: 'tools/list' }] });
    c.observe(`a batch without the header got HTTP ${batch.status}${Array.isArray(batch.json) ? ' and an array (2025-03-26 behaviour)' : ''}`);
  } });

  // "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches." (2025-03-26)
  check({ ids: 'jsonrpc-batch-2025-03-26', name: 'under 2025-03-26 a batch gets one response per request and none for notifications', generic: true, run: async (c) => {
    // On a stateful server, in a session negotiated at 2025-03-26 (the run's own speaks its newest revision).
    const send = async (own: OwnSessions, body: unknown[], rev: Revision) => c.mcp.post(body, { headers: { ...(await own.headersFor(body, rev)), 'mcp-protocol-version': rev } });
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    await withOwnSessions(c.run, c.target, async (own) => {
      // Methods every server has (tools/list, and ping, which "The receiver MUST respond promptly" to): the batch itself is judged.
      const [list, ping] = [c.run.ids.named('b'), c.run.ids.next()];
      const res = await send(own, [{ jsonrpc: '2.0', id: list, method: 'tools/list' }, notification, { jsonrpc: '2.0', id: ping, method: 'ping' }], '2025-03-26');
      c.verify(res.status === 200, 'a batch under 2025-03-26 is answered', 200, c.brief(res));
      c.verify(res.messages !== undefined || Array.isArray(res.json), 'a JSON reply to a batch is an array', 'an array of responses', c.brief(res));
      const responses = messages(res).filter((m) => isObject(m) && ('result' in m || 'error' in m));
      const ids = responses.map((m) => m.id);
      c.verify(responses.length === 2 && ids.includes(list) && ids.includes(ping), 'one response per request (tools/list and ping), none for the notification', [list, ping], ids);
      c.verify(isObject(responses.find((m) => m.id === list)?.result) && isObject(responses.find((m) => m.id === ping)?.result), 'the tools/list and ping entries have results', 'two results', responses);
      // An unknown method in a batch gets its error in the array. A server that refuses one sent alone without a
      // JSON-RPC error fails jsonrpc-method-not-found for that; the same refusal inside a batch is no news here.
      const alone = await c.mcp.request(NO_SUCH_METHOD, {});
      if (isObject(finalMessage(alone)?.error)) {
        const [again, unknown] = [c.run.ids.named('b'), c.run.ids.next()];
        const mixed = await send(own, [{ jsonrpc: '2.0', id: again, method: 'tools/list' }, { jsonrpc: '2.0', id: unknown, method: NO_SUCH_METHOD, params: {} }], '2025-03-26');
        const answers = messages(mixed).filter((m) => isObject(m) && ('result' in m || 'error' in m));
        c.verify(answers.length === 2 && isObject(answers.find((m) => m.id === again)?.result), 'a batch holding an unknown method still answers its other request', 'a result for tools/list', c.brief(mixed));
        // The code (-32601) is jsonrpc-standard-error-codes's business.
        c.verify(isObject(answers.find((m) => m.id === unknown)?.error), 'the unknown-method entry has an error', { error: { code: -32601 } }, answers);
      } else {
        c.observe(`an unknown method sent alone got HTTP ${alone.status} without a JSON-RPC error: a batch holding one was not judged`);
      }
      for (const rev of c.target.revisions.filter((r) => r !== '2025-03-26' && r !== MODERN)) {
        const later = await send(own, [{ jsonrpc: '2.0', id: c.run.ids.named('b'), method: 'tools/list' }, notification], rev);
        c.observe(`a batch under ${rev} got HTTP ${later.status}${later.json?.error ? ` (${later.json.error.code})` : Array.isArray(later.json) ? ' and an array' : ''}`);
      }
    });
  } });
});

export default seal();
