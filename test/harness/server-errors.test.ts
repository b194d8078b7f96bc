import { describe, expect, it } from 'vitest';
import { inCheck } from '../../src/wire/key-sightings.js';
import { malformedOrUnexpected } from '../../src/wire/malformed-message.js';
import { ServerErrorLedger, serverErrorRecord } from '../../src/wire/server-errors.js';
import type { Exchange } from '../../src/wire/exchange.js';

const MCP = 'http://127.0.0.1:9/api/mcp/v1';
const exchange = (body: string, status: number): Exchange => ({ request: { method: 'POST', url: MCP, headers: {}, body }, response: { status, headers: {}, headersAt: 1, endAt: 2 }, startedAt: new Date(0).toISOString() });
const post = (ledger: ServerErrorLedger, body: string, status: number, url = MCP) => ledger.note(url, 'POST', body, status, exchange(body, status));

describe('malformedOrUnexpected: the messages jsonrpc-no-5xx is about', () => {
  it('names what breaks JSON-RPC or MCP in a body', () => {
    expect(malformedOrUnexpected('{"jsonrpc":"2.0","id":1,"method":')).toBe('a body that is not JSON');
    expect(malformedOrUnexpected('[]')).toBe('an empty batch');
    expect(malformedOrUnexpected('{"jsonrpc":"1.0","id":1,"method":"ping"}')).toBe('"jsonrpc" is "1.0", not "2.0"');
    expect(malformedOrUnexpected('{"jsonrpc":"2.0","id":1,"result":{}}')).toBe('a response to no request the server sent');
    expect(malformedOrUnexpected('{"jsonrpc":"2.0","id":1,"method":"tools/call"}')).toBe('tools/call without params');
    expect(malformedOrUnexpected('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}')).toBe('"params" is neither an object nor an array (null)');
    expect(malformedOrUnexpected('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}')).toBe('tools/call with params []');
    expect(malformedOrUnexpected('{"jsonrpc":"2.0","id":{},"method":"ping"}')).toMatch(/^"id" is neither/);
    expect(malformedOrUnexpected('{"jsonrpc":"2.0","id":1,"method":"conformance/nope"}')).toMatch(/^the method "conformance\/nope", which MCP does not define/);
    expect(malformedOrUnexpected('[{"jsonrpc":"2.0","method":"notifications/initialized"},{"foo":1}]')).toBe('a batch holding "jsonrpc" is missing, not "2.0"');
  });

  it('leaves well-formed requests and notifications of MCP\'s methods alone', () => {
    for (const body of [
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
    ]) expect(malformedOrUnexpected(body), body).toBeUndefined();
  });
});

describe('the run-wide record of jsonrpc-no-5xx', () => {
  it('fails on a 5xx any check met, names the check and keeps the exchange; passes when none; not testable when none was sent', () => {
    {
      const run = new ServerErrorLedger();
      post(run, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', 500); // a valid request: not this row's
      inCheck('a check about something else', () => post(run, '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[]}', 500));
      post(run, '{bad', 400);
      post(run, '{bad', 502, 'http://127.0.0.1:9/api/agent/bootstrap'); // another endpoint: not the MCP endpoint's
      const r = serverErrorRecord(run, MCP);
      expect(r.status).toBe('fail');
      expect(r.message).toBe('1 of the 2 malformed or unexpected messages the run sent got a 5xx: tools/call with params [], sent by the check "a check about something else": HTTP 500');
      expect(r.wire).toHaveLength(1);
      expect(r.wire[0]!.request.body).toContain('"params":[]');
    }
    const passing = new ServerErrorLedger();
    post(passing, '{bad', 400);
    expect(serverErrorRecord(passing, MCP).status).toBe('pass');
    expect(serverErrorRecord(new ServerErrorLedger(), MCP).status).toBe('not-testable');
  });
});
