import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

/**
 * A stateless MCP server whose one tool (read-only) never answers: the harness's deadline is its own choice, so
 * the call is not testable, never the server's failure, and the server is told with notifications/cancelled
 * ("When a party wants to cancel an in-progress request, it sends a notifications/cancelled notification").
 */
describe('a tool call past the harness\'s deadline', () => {
  let server: Server;
  let url: string;
  const cancelled: unknown[] = [];
  const calls: unknown[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
        let msg: any;
        try {
          msg = JSON.parse(body);
        } catch {
          return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        }
        const answer = (result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
        if (msg?.id === undefined) {
          if (msg?.method === 'notifications/cancelled') cancelled.push(msg.params);
          return res.writeHead(202).end();
        }
        switch (msg.method) {
          case 'initialize':
            return answer({ protocolVersion: msg.params?.protocolVersion === '2025-06-18' ? '2025-06-18' : '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } });
          case 'tools/list':
            return answer({ tools: [{ name: 'wait', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } }] });
          case 'tools/call':
            calls.push(msg.id);
            return; // never answered; the connection stays open until the client gives up
          default:
            return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is not testable with the reason, and the server gets notifications/cancelled for it', async () => {
    const run = await runCli(['--target', 'url', '--mcp-url', url, '--profile', 'generic', '--seed', '1', '--timeout', '2000', '--only', 'calls-valid-arguments-accepted'], 60_000);
    const row = run.results?.requirements.find((r) => r.id === 'calls-valid-arguments-accepted');
    expect(row, run.stdout + run.stderr).toBeDefined();
    expect(row!.status).toBe('not-testable');
    expect(row!.checks[0]!.reason ?? '').toMatch(/no call was answered within the harness's deadline of 2000 ms \(notifications\/cancelled sent for each\): wait/);
    expect(calls.length).toBeGreaterThan(0);
    expect(cancelled).toContainEqual(expect.objectContaining({ requestId: calls[0] }));
  });

  it('an envelope the server leaves unanswered ends the envelope search as not testable, never a failure', async () => {
    const run = await runCli(['--target', 'url', '--mcp-url', url, '--profile', 'generic', '--seed', '1', '--timeout', '2000', '--only', 'jsonrpc-no-5xx'], 60_000);
    const row = run.results?.requirements.find((r) => r.id === 'jsonrpc-no-5xx');
    expect(row, run.stdout + run.stderr).toBeDefined();
    // Never a failure; the checks whose calls went unanswered are not testable, saying why (the run-wide record of
    // every malformed message may still pass on those the server did answer).
    expect(row!.status).not.toBe('fail');
    const reasons = row!.checks.filter((c) => c.status === 'not-testable').map((c) => c.reason ?? '');
    expect(reasons.some((r) => /"method":"tools\/call".* was not answered within 2000 ms, the harness's deadline: a slow reply proves no protocol error/.test(r)), reasons.join('\n')).toBe(true);
  });
});
