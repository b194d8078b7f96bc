import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { defineSuite } from '../../src/engine/check.js';
import { envelopeProperty, MAX_RUNS, postBody, withEnvelopes } from '../../src/properties/jsonrpc-envelope-property.js';
import { batchArb, bodyOf, classify, envelopeArb, UNKNOWN_PREFIX, type Envelope, type Kind } from '../../src/properties/jsonrpc-envelopes.js';
import { jsonRpcLike, malformed, rawMember, responsesOf, RESPONSE_RULES } from '../../src/properties/jsonrpc-replies.js';
import { isObject } from '../../src/mcp/tool-result.js';
import type { WireResponse } from '../../src/wire/client.js';

const { check, describe, seal } = defineSuite('properties/jsonrpc');

/**
 * JSON-RPC envelopes searched rather than sampled: ids of every JSON type, members missing, extra or of the
 * wrong type, wrong `jsonrpc`, unknown methods, notifications, stray responses, and (under 2025-03-26)
 * batches of them, POSTed with a live key. The scenario suite sends a dozen fixed bodies; these send
 * hundreds per run, each judged by what JSON-RPC 2.0 and the MCP transport say of its kind
 * (the envelopes and their kinds: src/properties/jsonrpc-envelopes.ts).
 */

const BATCH_REVISION = '2025-03-26';

describe.concurrent('jsonrpc properties', () => {
  // RFC 9110 §15.6: "The 5xx (Server Error) class of status code indicates that the server is aware that it has
  // erred". MCP server/tools (TOOL-12): servers MUST validate inputs: bad input is a client error, never a 5xx.
  check({ ids: 'jsonrpc-no-5xx', name: 'property: no envelope, however malformed, gets a 5xx', generic: true, property: 'jsonrpc-envelope-no-5xx', run: async (c) => {
    // Envelopes, and sometimes their text cut short (not JSON at all).
    const body = (v: { envelope: Envelope; cut: number | null }) => (v.cut === null ? bodyOf(v.envelope) : bodyOf(v.envelope).slice(0, v.cut % bodyOf(v.envelope).length));
    const label = (v: { envelope: Envelope; cut: number | null; revision?: string }) => `${body(v)}${v.revision ? ` (MCP-Protocol-Version: ${v.revision})` : ''}`;
    await withEnvelopes(c, 'jsonrpc-envelope-no-5xx', async (s) => {
      await c.property({
        arbitrary: fc.record({ envelope: envelopeArb, revision: fc.constantFrom(...s.revisions), cut: fc.option(fc.nat(), { freq: 4 }) }),
        maxRuns: MAX_RUNS,
        show: label,
        predicate: async (v) => {
          const res = await postBody(c, s, body(v), v.revision);
          c.verify(res.status < 500, `${label(v)} is not answered with a server error`, '< 500', c.brief(res));
        },
      });
    });
  } });

  // "id: This member is REQUIRED. It MUST be the same as the value of the id member in the Request Object.
  // If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null."
  check({ ids: 'jsonrpc-id-echo', name: 'property: the reply id is exactly the request id (value and type), or null when the request is invalid', generic: true, property: 'jsonrpc-envelope-ids', run: async (c) => {
    let judged = 0;
    await envelopeProperty(c, 'jsonrpc-envelope-ids', ({ envelope, what, res, responses, label }) => {
      // A request refused at the HTTP level without a JSON-RPC response carries no id to judge here (the rows of
      // the refusal judge it); a request accepted and never answered owes its response ("The Server MUST reply
      // with the same value in the Response object").
      // A body holding no JSON-RPC member (a serialized exception) is no response either.
      const refused = res.status >= 400 && !responses.some(jsonRpcLike);
      if (refused) return;
      judged += 1;
      if (what.kind === 'request') {
        c.verify(responses.length === 1, `${label}: one response`, 1, c.brief(res));
        const id = responses[0]!.id;
        // A request with members JSON-RPC does not define, or with by-position params (MCP names every param), may be
        // refused as invalid (as the kinds property allows), and "If there was an error in detecting the id in the
        // Request object (e.g. Parse error/Invalid Request), it MUST be Null."
        const refusedAsInvalid = (envelope.extras.length > 0 || Array.isArray(envelope.params?.value)) && 'error' in responses[0]! && id === null;
        c.verify(refusedAsInvalid || isDeepStrictEqual(id, what.id), `${label}: the response id is the request id, same value and type`, what.id, id);
      } else if (what.kind === 'big-id-request') {
        // The id as written, digit for digit: in the JSON body, or in the data of the event that carries the response.
        const source = res.json !== undefined ? res.text : res.events?.find((e) => e.data.includes('"id"'))?.data;
        const raw = source !== undefined ? rawMember(source, 'id') : undefined;
        const id = responses[0]?.id;
        c.verify(id === null || id === undefined || raw === what.id, `${label}: an id beyond 2^53 is echoed digit for digit, or the request refused with id null`, `${what.id} or null`, raw ?? id);
      } else {
        for (const m of responses) {
          if (!('id' in m) || m.id === null) continue;
          c.verify((typeof what.id === 'string' || typeof what.id === 'number') && isDeepStrictEqual(m.id, what.id), `${label} (${what.kind}): a reply id that is not null is the request id`, what.id ?? null, m.id);
        }
      }
    });
    if (judged === 0) c.notTestable('every generated envelope was refused at the HTTP level without a JSON-RPC response: no reply id to judge');
  } });

  // "jsonrpc: ... MUST be exactly "2.0"." "Either the result member or error member MUST be included, but both
  // members MUST NOT be included." "code: ... MUST be an integer. message: A String".
  // One search per rule, so that a response breaking one rule fails that rule's row only. A reply carrying no
  // response says nothing of these rules (a response owed and not sent is jsonrpc-invalid-request's and
  // jsonrpc-id-echo's to judge); a search that met no response to judge is not testable.
  for (const rule of RESPONSE_RULES) {
    const propertyId = `jsonrpc-envelope-${rule.row.replace(/^jsonrpc-/, '')}`;
    const [name, expected] = ({
      'jsonrpc-version-member': ['every JSON-RPC response says "jsonrpc": "2.0"', { jsonrpc: '2.0' }],
      'jsonrpc-result-xor-error': ['every JSON-RPC response has exactly one of result and error', 'result xor error'],
      'jsonrpc-error-object': ['every JSON-RPC error has an integer code and a string message', { error: { code: 'integer', message: 'string' } }],
    } as Record<string, [string, unknown]>)[rule.row]!;
    check({ ids: rule.row, name: `property: ${name}`, generic: true, property: propertyId, run: async (c) => {
      let judged = 0;
      await envelopeProperty(c, propertyId, ({ responses, label }) => {
        for (const m of responses) {
          // A 4xx for a notification may carry a JSON-RPC error (or another body): judge what looks like JSON-RPC.
          if (!jsonRpcLike(m)) continue;
          if (rule.row === 'jsonrpc-error-object' && !('error' in m)) continue;
          judged += 1;
          const problem = rule.problem(m);
          c.verify(problem === undefined, `${label}: ${problem}`, expected, m);
        }
      });
      if (judged === 0) c.notTestable(`no reply to the generated envelopes carried a JSON-RPC ${rule.row === 'jsonrpc-error-object' ? 'error' : 'response'} to judge`);
    } });
  }

  // "-32600 Invalid Request: The JSON sent is not a valid Request object." "-32601 Method not found."
  // Notifications: "If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no
  // body." "If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)."
  // One property per rule, so that a counterexample of one rule (an invalid request refused with the wrong code)
  // fails that rule's rows only, not every rule the envelopes exercise.
  // Notifications and responses: one search for what an accepted one gets (202), one for what a refused one gets
  // (a 4xx), so that each counterexample fails the row whose sentence it breaks.
  const kindRules: [string, Kind[], string, string][] = [
    ['jsonrpc-invalid-request', ['invalid'], 'jsonrpc-envelope-invalid', 'each envelope of kind invalid gets the answer its kind calls for'],
    ['jsonrpc-notification-202', ['notification', 'response'], 'jsonrpc-envelope-notifications', 'a notification or response the server accepts gets 202 with no body'],
    ['jsonrpc-invalid-notification-4xx', ['notification', 'response'], 'jsonrpc-envelope-notifications-refused', 'a notification or response the server refuses gets an HTTP error status, never a response'],
    ['jsonrpc-method-not-found', ['request'], 'jsonrpc-envelope-requests', 'each envelope of kind request gets the answer its kind calls for'],
  ];
  for (const [row, kinds, propertyId, name] of kindRules) {
    check({ ids: row, name: `property: ${name}`, generic: true, property: propertyId, run: async (c) => {
      await envelopeProperty(c, propertyId, ({ envelope, what, res, responses, label: sentLabel }) => {
        const label = `${sentLabel} (${what.kind}${what.defects.length ? `: ${what.defects.join('; ')}` : ''})`;
        const method = envelope.method?.value;
        const params = envelope.params?.value;
        switch (what.kind) {
          case 'notification':
          case 'response': {
            const is2xx = res.status >= 200 && res.status < 300;
            if (row === 'jsonrpc-notification-202') {
              // "If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body."
              if (is2xx) c.verify(res.status === 202 && res.text === '', `${label}: accepted, so 202 with no body`, { status: 202, body: '' }, c.brief(res));
              // Every server accepts notifications/initialized; nothing about it can be refused (but members JSON-RPC
              // does not define, as for requests below).
              if (method === 'notifications/initialized' && envelope.extras.length === 0 && (params === undefined || isDeepStrictEqual(params, {}))) c.verify(res.status === 202 && res.text === '', `${label}: 202 with no body`, { status: 202, body: '' }, c.brief(res));
            } else if (!is2xx) {
              // "If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request).
              // The HTTP response body MAY comprise a JSON-RPC error response that has no `id`" (an echoed id is tolerated).
              // Any 4xx or 5xx is an HTTP error status (a 5xx is jsonrpc-no-5xx's to judge).
              const refused = res.status >= 400 && responses.every((m) => !('result' in m) && (!('id' in m) || m.id === null || isDeepStrictEqual(m.id, what.id)));
              c.verify(refused, `${label}: refused, so an HTTP error status (never a response)`, 'an HTTP error status (4xx, 5xx)', c.brief(res));
            }
            break;
          }
          case 'invalid': {
            c.verify(res.status !== 202 && res.status < 500, `${label}: an error reply (not 202, not a 5xx)`, '4xx or 200 with an error', c.brief(res));
            if (envelope.id === undefined && envelope.method !== undefined) c.verify(res.status >= 400, `${label}: a malformed message without an id gets an HTTP 4xx`, '4xx', c.brief(res));
            const m = responses[0];
            // An error Response is owed; its code (-32600, or -32602 for bad params) is jsonrpc-standard-error-codes's to judge, at SHOULD.
            const code = what.defects.every((d) => d.startsWith('"params"')) ? -32602 : -32600;
            c.verify(responses.length === 1 && isObject(m) && !('result' in m) && isObject(m.error), `${label}: one JSON-RPC error`, { error: { code } }, c.brief(res));
            break;
          }
          case 'request': {
            c.verify(res.status !== 202, `${label}: a request gets a response, not 202`, 'a response', c.brief(res));
            // JSON-RPC says nothing of other members: a request carrying one may be served or refused (-32600; -32700,
            // wrong for valid JSON, is jsonrpc-invalid-request's business, not a method lookup).
            const refusedForExtras = envelope.extras.length > 0 && responses.length === 1 && [-32600, -32700].includes(responses[0]?.error?.code);
            if (typeof method === 'string' && method.startsWith(UNKNOWN_PREFIX) && !Array.isArray(params) && !refusedForExtras) {
              // An error, not a result; -32601 itself is jsonrpc-standard-error-codes's to judge (SHOULD).
              c.verify(responses.length === 1 && isObject(responses[0]?.error) && !('result' in responses[0]), `${label}: an unknown method gets a JSON-RPC error`, { error: { code: -32601 } }, c.brief(res));
            }
            break;
          }
          default:
            break;
        }
      }, kinds);
    } });
  }

  // "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches."
  // JSON-RPC §6: "The Server should respond with an Array containing the corresponding Response objects";
  // "If there are no Response objects contained within the Response array ... the server MUST NOT return an
  // empty Array and should return nothing at all". (An empty Array is jsonrpc-invalid-request's probe.)
  check({ ids: 'jsonrpc-batch-2025-03-26', name: 'property: under 2025-03-26 a batch gets one response per request and per invalid item, none for notifications', generic: true, property: 'jsonrpc-batches', run: async (c) => {
    const label = (items: Envelope[]) => `[${items.map(bodyOf).join(',')}]`;
    /** A 4xx that carries no result: the batch refused. */
    const refusedWithoutResult = (res: WireResponse) => res.status >= 400 && res.status < 500 && responsesOf(res).every((m) => !('result' in m));
    await withEnvelopes(c, 'jsonrpc-batches', async (s) => {
      await c.property({
        arbitrary: batchArb,
        maxRuns: MAX_RUNS,
        show: label,
        predicate: async (items) => {
          const res = await postBody(c, s, label(items), BATCH_REVISION);
          const what = items.map(classify);
          c.verify(res.status < 500, `${label(items)}: not a server error`, '< 500', c.brief(res));
          // "[]" is not a valid request: jsonrpc-invalid-request sends it every run and judges the reply; a search
          // that happens on it must not fail this row too.
          if (items.length === 0) return;
          const requests = what.filter((w) => w.kind === 'request');
          const invalid = what.filter((w) => w.kind === 'invalid');
          if (requests.length + invalid.length === 0) {
            // 2025-03-26: "If the input consists solely of (any number of) JSON-RPC responses or notifications: If the
            // server accepts the input, the server MUST return HTTP status code 202 Accepted with no body. If the
            // server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)."
            const accepted = res.status === 202 && res.text === '';
            c.verify(accepted || refusedWithoutResult(res), `${label(items)}: a batch of notifications only gets 202 and no body, or a 4xx`, '202 and no body, or 4xx', c.brief(res));
            return;
          }
          // No request in it: an invalid item's error is JSON-RPC's "A Response object SHOULD exist for each Request
          // object", and how each item is answered is jsonrpc-invalid-request's to judge.
          if (requests.length === 0) return;
          // JSON-RPC §6: the server "should" (not MUST) answer an array with a response per item. A batch holding an
          // item JSON-RPC or MCP refuses (invalid, by-position params, members JSON-RPC does not define) may be refused
          // whole with one error; a batch of well-formed requests and notifications must be answered item by item.
          const refusable = invalid.length > 0 || items.some((e) => Array.isArray(e.params?.value) || e.extras.length > 0);
          const refusedWhole = refusedWithoutResult(res)
            || (isObject(res.json) && !Array.isArray(res.json) && isObject(res.json.error));
          if (refusable && refusedWhole) return;
          if (res.messages === undefined && !Array.isArray(res.json)) {
            // Refused whole: when one of its items sent alone is refused too (an unknown method, a request MCP does not
            // define, a notification the server "cannot accept"), that item's rows judge the refusal, not the batch's.
            for (const item of items) {
              const one = await postBody(c, s, bodyOf(item), BATCH_REVISION);
              if (one.status >= 400 && one.status < 500) return;
            }
          }
          c.verify(res.messages !== undefined || Array.isArray(res.json), `${label(items)}: the reply is an array of responses (or a stream of them)`, 'an array', c.brief(res));
          const responses = responsesOf(res);
          for (const m of responses) c.verify(malformed(m) === undefined, `${label(items)}: ${malformed(m)}`, 'a well-formed response', m);
          // Every request answered (a batch is supported). An invalid item's error is JSON-RPC's "A Response object
          // SHOULD exist for each Request object" (an invalid item is no Request object): it may be missing, and how
          // the item itself is answered is jsonrpc-invalid-request's to judge.
          const most = requests.length + invalid.length;
          c.verify(responses.length >= requests.length && responses.length <= most, `${label(items)}: one response per request (and at most one per invalid item), none for notifications`, requests.length === most ? most : `${requests.length} to ${most}`, responses);
          for (const r of requests) {
            c.verify(responses.filter((m) => isDeepStrictEqual(m.id, r.id)).length === 1, `${label(items)}: exactly one response has request id ${JSON.stringify(r.id)}`, r.id, responses.map((m) => m.id));
          }
        },
      });
    });
  } });
});

export default seal();
