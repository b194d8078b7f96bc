import { describe, expect, it } from 'vitest';
import { notMcpReason } from '../../src/targets/endpoint-preflight.js';

/** The first reply of a url run: what an MCP server may answer a bare ping with, and what no MCP server answers. */
describe('notMcpReason', () => {
  const reply = (status: number, contentType: string, head = '') => ({ status, contentType, head });

  it('lets through what MCP servers answer a ping without a key or a session', () => {
    for (const r of [
      reply(401, 'application/json', '{"error":"unauthorized"}'),
      reply(401, 'text/html', '<!doctype html><p>log in'), // an auth gate in front of the service
      reply(403, 'text/plain', 'Forbidden'),
      reply(400, 'application/json', '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}'),
      reply(400, 'text/plain; charset=utf-8', 'Bad Request: missing session ID'), // the Go SDK's http.Error
      reply(406, 'application/json', '{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Not Acceptable"}}'),
      reply(200, 'application/json', '{"jsonrpc":"2.0","id":0,"result":{}}'),
      reply(200, 'text/event-stream', 'event: message\ndata: {"jsonrpc":"2.0","id":0,"result":{}}\n\n'),
      reply(202, '', ''),
      reply(500, 'application/json', '{"message":"NullPointerException"}'), // the service failing: the run judges it
    ]) expect(notMcpReason(r), JSON.stringify(r)).toBeUndefined();
  });

  it('stops at what no MCP endpoint answers', () => {
    expect(notMcpReason(reply(501, 'text/html', '<!DOCTYPE HTML><title>Error response</title>'))).toMatch(/^answered 501 \(text\/html\) to a POST/);
    expect(notMcpReason(reply(405, 'text/plain', 'Method Not Allowed'))).toMatch(/^answered 405/);
    expect(notMcpReason(reply(200, 'text/html; charset=utf-8', '<html><body>Welcome'))).toBe('answered 200 (text/html) with a web page, not JSON-RPC');
    expect(notMcpReason(reply(400, '', '  <!doctype html><p>Bad request'))).toMatch(/with a web page/);
    expect(notMcpReason(reply(200, 'application/json', '{"status":"ok"}'))).toMatch(/^answered 200 \(application\/json\) with no JSON-RPC message/);
    expect(notMcpReason(reply(200, 'text/plain', 'pong'))).toMatch(/with no JSON-RPC message/);
  });
});
