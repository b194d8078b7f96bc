import { poolRequest } from '../wire/connections.js';
import type { RunState } from '../engine/run-state.js';
import type { Revision } from '../catalog/types.js';
import type { TargetInfo } from './target-info.js';

/**
 * The session lifecycle of a stateful Streamable HTTP server (MCP 2025-03-26 to 2025-11-25, "Session
 * Management"): the run initializes once, and when the reply carries `Mcp-Session-Id` every later request of
 * the run carries it (McpSession.headers) and the session is deleted at the end. A stateless server (the
 * service) answers initialize without one: nothing else is sent, nothing changes.
 */

/** Revisions with an initialize handshake and sessions, newest first (2026-07-28 removed both). */
const SESSION_REVISIONS: Revision[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** The MCP-Protocol-Version header exists from 2025-06-18 on. */
const VERSION_HEADER_REVISIONS: Revision[] = ['2025-11-25', '2025-06-18'];
/** The run's own housekeeping: never worth more than a few seconds, whatever the target's deadline. */
const HOUSEKEEPING_TIMEOUT_MS = 5_000;

export const CLIENT_INFO = { name: 'mcp-conformance-harness', version: '1' };

export interface RunSession {
  /** The session the server opened, which every later request of the run carries; absent when it keeps none. */
  sessionId?: string;
  /** Ends the session (`DELETE`); a no-op when the server keeps none. Never throws. */
  close(): Promise<void>;
}

/** The headers every request to the target carries (its `--header`s and key), as detect-revisions sends them. */
export function baseHeaders(info: TargetInfo): Record<string, string> {
  return {
    'content-type': 'application/json', accept: 'application/json, text/event-stream', ...info.headers,
    ...(info.apiKey && { authorization: `Bearer ${info.apiKey}` }),
  };
}

/** The newest 2025-era revision the target speaks: the one a session is opened with. */
export function sessionRevision(info: TargetInfo): Revision | undefined {
  return SESSION_REVISIONS.find((r) => info.revisions.includes(r));
}

/** `initialize` params for `revision`. */
export function initializeParams(revision: Revision): Record<string, unknown> {
  return { protocolVersion: revision, capabilities: {}, clientInfo: CLIENT_INFO };
}

/** Headers after initialize: the session (when there is one) and, from 2025-06-18, the negotiated revision. */
export function sessionHeaders(revision: Revision, sessionId: string | undefined): Record<string, string> {
  return {
    ...(sessionId !== undefined && { 'mcp-session-id': sessionId }),
    ...(VERSION_HEADER_REVISIONS.includes(revision) && { 'mcp-protocol-version': revision }),
  };
}

async function send(run: RunState, info: TargetInfo, method: 'POST' | 'DELETE', headers: Record<string, string>, body?: unknown) {
  run.tally.add({ requests: 1 }); // the run's tally counts housekeeping too
  const res = await poolRequest(run.pool, info.mcpUrl, {
    method, headers, ...(body !== undefined && { body: JSON.stringify(body) }),
    headersTimeout: HOUSEKEEPING_TIMEOUT_MS, bodyTimeout: HOUSEKEEPING_TIMEOUT_MS,
  });
  // The body is not needed (an initialize result is the suites' business), but it must be consumed.
  await res.body.text().catch(() => '');
  const sid = res.headers['mcp-session-id'];
  return { status: res.statusCode, sessionId: Array.isArray(sid) ? sid[0] : sid };
}

/** A session the harness opened: its id, and how to end it. */
export interface OpenedSession {
  sessionId: string;
  /** Ends the session (`DELETE`); never throws. */
  close(): Promise<void>;
}

/**
 * Opens a session: `initialize` (with the target's headers and key) at `revision`, then, "If an
 * `MCP-Session-Id` is returned by the server during initialization, clients using the Streamable HTTP transport
 * MUST include it in the `MCP-Session-Id` header on all of their subsequent HTTP requests":
 * `notifications/initialized` with it. Undefined when the server answers without one (it keeps no session).
 */
export async function openSession(run: RunState, info: TargetInfo, revision: Revision): Promise<OpenedSession | undefined> {
  let sessionId: string | undefined;
  try {
    const init = await send(run, info, 'POST', baseHeaders(info), { jsonrpc: '2.0', id: run.ids.named('harness-session-init'), method: 'initialize', params: initializeParams(revision) });
    if (init.status !== 200 || init.sessionId === undefined) return undefined;
    sessionId = init.sessionId;
    // Its answer (202 or not) is the jsonrpc suite's business; a session server serves requests either way.
    await send(run, info, 'POST', { ...baseHeaders(info), ...sessionHeaders(revision, sessionId) }, { jsonrpc: '2.0', method: 'notifications/initialized' });
  } catch {
    // An unreachable target is reported by the checks, each with its own wire log.
    if (sessionId === undefined) return undefined;
  }
  const id = sessionId;
  return {
    sessionId: id,
    async close() {
      // "Clients that no longer need a particular session [...] SHOULD send an HTTP DELETE to the MCP endpoint
      // with the MCP-Session-Id header" (405 means the server does not allow it: nothing more to do).
      await send(run, info, 'DELETE', { ...baseHeaders(info), ...sessionHeaders(revision, id) }).catch(() => undefined);
    },
  };
}

/**
 * Finds out whether the server wants a session, and opens the run's one if so (`openSession`); the run puts its
 * id in the target's facts (`sessionId`), which every later request of the run carries (McpSession.headers).
 */
export async function openRunSession(run: RunState, info: TargetInfo): Promise<RunSession> {
  const none: RunSession = { close: async () => {} };
  const revision = sessionRevision(info);
  // A 2026-07-28-only server has no handshake and no sessions; stdio sessions are the proxy's business.
  if (revision === undefined || info.kind === 'stdio') return none;
  return (await openSession(run, info, revision)) ?? none;
}
