import { type CheckContext, defineSuite } from '../src/engine/check.js';
import { finalMessage, McpSession } from '../src/mcp/mcp-session.js';
import type { WireResponse } from '../src/wire/client.js';
import { openSession, sessionHeaders, sessionRevision } from '../src/targets/session-lifecycle.js';

const { check, describe, seal } = defineSuite('stateless');

/**
 * The service keeps no session state (service.md §What the service does, §Limits): no initialize needed,
 * no session id minted or required, POST only, and whatever one POST writes the next POST sees.
 */
const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** A GET may open a stream that never ends (an SDK stateful server does): never wait the full deadline on one. */
const PROBE_DEADLINE_MS = 3000;

function sessionHeader(res: WireResponse): string | undefined {
  return res.headers['mcp-session-id'];
}

/** The `Allow` field's methods (RFC 9110 §10.2.1: a comma-separated list of method tokens, case-sensitive). */
function allowedMethods(value: string | undefined): string[] {
  return (value ?? '').split(',').map((m) => m.trim()).filter(Boolean);
}

/**
 * Statelessness is the service's rule (service.md), not MCP's: these rows run under the service's profile only,
 * where a server that keeps sessions fails them, as it should. Under the generic profile only
 * stateless-405-allow runs, an HTTP rule that holds for any server; a stateful server's sessions are checked by
 * suites/session.suite.ts.
 *
 * These rows judge what a client without a session sees, so their requests never carry the run's session (on a
 * stateful target the run holds one, see src/targets/session-lifecycle.ts; a DELETE in it would end it for
 * every other check). On a stateless target this is the run's own McpSession: nothing changes.
 */
function sessionless(c: CheckContext): McpSession {
  return c.target.sessionId === undefined ? c.mcp : new McpSession(c.http, { ...c.target, sessionId: undefined });
}

/** A request id that no earlier exchange used, for a session id nobody minted. */
function bogusSessionId(c: CheckContext): string {
  return `conformance-bogus-${c.settings.seed.toString(16)}-${Date.now().toString(16)}`;
}

describe('stateless', () => {
  // "The server keeps no session state. A fresh server instance is built for every POST, so a client keeps
  // no session." — so the first request may be anything: tools/list with no initialize before it.
  check({ ids: 'stateless-no-initialize', name: 'tools/list as the very first request, without initialize, is answered', run: async (c) => {
    const { verify } = c;
    const res = await sessionless(c).request('tools/list');
    verify(res.status === 200, `tools/list without initialize answered ${res.status}`, 200, c.brief(res));
    const m = finalMessage(res);
    verify(Array.isArray(m?.result?.tools), 'the reply is a tools/list result with a tools array', { result: { tools: '[...]' } }, m ?? res.text.slice(0, 300));
  } });

  // "The server keeps no session state. [...] so a client keeps no session." (2026-07-28: "do not mint or
  // echo session IDs".) No reply of any kind carries Mcp-Session-Id, initialize's least of all.
  check({ ids: 'stateless-no-session-id', name: 'no reply carries Mcp-Session-Id (initialize, notifications, tools/list, a stream, errors, 405)', run: async (c) => {
    const { http, target, verify, observe } = c;
    const mcp = sessionless(c);
    const legacy = LEGACY_REVISIONS.find((r) => target.revisions.includes(r));
    const preview = target.profile.streaming['schedule.preview'];
    // Headers first: without a key they end the check here, before any probe is in flight unawaited.
    const headers = mcp.headers();
    const probes: [string, Promise<WireResponse>][] = [
      ['tools/list', mcp.request('tools/list')],
      ['an unknown method', mcp.request('conformance/no-such-method')],
      ['a notification', mcp.post({ jsonrpc: '2.0', method: 'notifications/initialized' })],
      ['GET', http.request(target.mcpUrl, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, timeoutMs: PROBE_DEADLINE_MS })],
    ];
    if (legacy) {
      probes.push([`initialize (${legacy})`, mcp.request('initialize', { protocolVersion: legacy, capabilities: {}, clientInfo: { name: 'mcp-conformance-harness', version: '1' } })]);
    } else observe('the target speaks no 2025-era revision: no initialize to examine');
    if (preview && !JSON.stringify(preview.arguments).includes('{{')) {
      probes.push([`${preview.tool} (streaming)`, mcp.call(preview.tool, preview.arguments, { progressToken: 'stateless' })]);
    }
    const replies = await Promise.all(probes.map(async ([name, p]) => [name, await p] as const));
    for (const [name, res] of replies) {
      const sid = sessionHeader(res);
      verify(sid === undefined, `the reply to ${name} carries Mcp-Session-Id`, 'no Mcp-Session-Id header', `Mcp-Session-Id: ${sid}`);
    }
  } });

  // The server keeps no session state between POSTs; 2026-07-28: "An `Mcp-Session-Id` header on a request:
  // ignore it, and do not mint or echo session IDs." (A session server answers 400 or 404 instead.)
  check({ ids: 'stateless-bogus-session-ignored', name: 'a request with an unknown Mcp-Session-Id is served normally', run: async (c) => {
    const sid = bogusSessionId(c);
    const res = await sessionless(c).request('tools/list', undefined, { headers: { 'mcp-session-id': sid } });
    c.verify(res.status === 200, `tools/list with Mcp-Session-Id: ${sid} answered ${res.status}`, 200, c.brief(res));
    const m = finalMessage(res);
    c.verify(Array.isArray(m?.result?.tools), 'the reply is a tools/list result', { result: { tools: '[...]' } }, m ?? res.text.slice(0, 300));
    c.verify(sessionHeader(res) === undefined, 'the reply echoes or mints a session id', 'no Mcp-Session-Id header', sessionHeader(res));
  } });

  // "HTTP GET or DELETE to the MCP endpoint: respond with `405 Method Not Allowed`." (2026-07-28; under
  // 2025-era revisions a GET "MUST either return `Content-Type: text/event-stream` [...] or else return HTTP
  // 405", and a stateless server has nothing to stream.)
  check({ ids: 'stateless-get-405', name: 'GET on the MCP endpoint is 405 Method Not Allowed', run: async (c) => {
    const { http, target, verify } = c;
    const mcp = sessionless(c);
    const res = await http.request(target.mcpUrl, { method: 'GET', headers: { ...mcp.headers(), accept: 'text/event-stream' }, timeoutMs: PROBE_DEADLINE_MS });
    verify(res.status === 405, `GET answered ${res.status}${res.mediaType === 'text/event-stream' ? ' with an SSE stream (allowed before 2026-07-28, pointless without sessions)' : ''}`, 405, c.brief(res));
  } });

  // "HTTP GET or DELETE to the MCP endpoint: respond with `405 Method Not Allowed`." (2026-07-28)
  check({ ids: 'stateless-delete-405', name: 'DELETE on the MCP endpoint (ending a session) is 405 Method Not Allowed', run: async (c) => {
    const res = await c.http.request(c.target.mcpUrl, { method: 'DELETE', headers: { ...sessionless(c).headers(), 'mcp-session-id': bogusSessionId(c) }, timeoutMs: PROBE_DEADLINE_MS });
    c.verify(res.status === 405, `DELETE answered ${res.status}`, 405, c.brief(res));
  } });

  // "The origin server MUST generate an Allow header field in a 405 response containing a list of the
  // target resource's currently supported methods." POST is supported, so it is listed.
  // Any server's 405, sessions or not; the probes carry no session, so the DELETE cannot end the run's one. A
  // stateful server refuses requests without a session before it looks at the method (400): there PUT and DELETE
  // go again in a session of the check's own. A server that answers none with 405 is not bound by the rule.
  check({ ids: 'stateless-405-allow', name: 'every 405 carries an Allow header listing POST', generic: true, run: async (c) => {
    const { http, target, verify, observe } = c;
    const mcp = sessionless(c);
    const probe = (method: string, session: Record<string, string> = {}) =>
      http.request(target.mcpUrl, { method, headers: { ...mcp.headers(), ...session, ...(method === 'GET' && { accept: 'text/event-stream' }) }, ...(method === 'PUT' && { raw: '{}' }), timeoutMs: PROBE_DEADLINE_MS });
    const replies: (readonly [string, WireResponse])[] = await Promise.all(['GET', 'DELETE', 'PUT'].map(async (method) => [method, await probe(method)] as const));
    const revision = sessionRevision(target);
    if (!replies.some(([, res]) => res.status === 405) && target.sessionId !== undefined && revision) {
      const own = await openSession(c.run, target, revision);
      if (own) {
        try {
          for (const method of ['PUT', 'DELETE']) replies.push([`${method} in a session`, await probe(method, sessionHeaders(revision, own.sessionId))]);
        } finally {
          await own.close();
        }
      }
    }
    const refused = replies.filter(([, res]) => res.status === 405);
    observe(replies.map(([m, res]) => `${m}: ${res.status}${res.headers.allow !== undefined ? `, Allow: ${res.headers.allow}` : ''}`).join('; '));
    if (refused.length === 0) c.notApplicable(`not applicable: the server answered none of ${replies.map(([m]) => m).join(', ')} with 405, and the rule binds 405 replies only`);
    for (const [method, res] of refused) {
      verify(res.headers.allow !== undefined, `the 405 to ${method} has no Allow header`, 'Allow: POST', null);
      verify(allowedMethods(res.headers.allow).includes('POST'), `the 405 to ${method} does not list POST in Allow`, 'Allow listing POST', res.headers.allow);
    }
  } });

  // "A fresh server instance is built for every POST, so a client keeps no session. The server keeps no
  // session state between POSTs." State lives in the workspace: what one POST writes, the next one reads,
  // whatever instance serves it.
  check({ ids: 'stateless-any-instance', name: 'a block created in one POST is listed by the next, with no session between them', run: async (c) => {
    const mcp = sessionless(c);
    const { createBlock, listBlocks } = c.target.profile.calls;
    if (!createBlock || !listBlocks) c.notTestable(`the profile "${c.target.profile.name}" has no createBlock and listBlocks calls`);
    const vars: Record<string, unknown> = { title: `stateless ${c.settings.seed}-${Date.now().toString(36)}` };
    const created = await mcp.recipe(createBlock!, vars);
    const blockId = vars.blockId;
    c.verify(typeof blockId === 'string' && blockId.length > 0, 'createBlock returned a block id', 'a block id', finalMessage(created) ?? created.text.slice(0, 300));
    const listed = await mcp.recipe(listBlocks!, {});
    const result = finalMessage(listed)?.result;
    c.verify(result !== undefined && JSON.stringify(result).includes(String(blockId)), `the block ${String(blockId)} created by the previous POST is not in the list`, `a list containing ${String(blockId)}`, result ?? listed.text.slice(0, 500));
    c.observe('two POSTs, no initialize and no session header between them; which server instance served each is not visible from outside');
  } });
});

export default seal();
