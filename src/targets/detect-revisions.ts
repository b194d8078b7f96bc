import { poolRequest } from '../wire/connections.js';
import type { RunState } from '../engine/run-state.js';
import { REVISIONS, type Revision } from '../catalog/types.js';
import { CLIENT_INFO, LEGACY_REVISIONS, MODERN, speakRevision } from '../mcp/revision-wire.js';
import type { TargetInfo } from './target-info.js';
import { requestLine, type InspectedReply } from '../wire/key-sightings.js';

interface Probe {
  status: number;
  message: any;
  /** The session a stateful server opened for the probe, if any. */
  sessionId?: string;
}

/** One request of the detection to the endpoint with the target's headers and key, counted in the run's ledger. */
async function send(run: RunState, info: TargetInfo, method: 'POST' | 'DELETE', headers: Record<string, string>, body?: unknown) {
  run.tally.add({ requests: 1 });
  return poolRequest(run.pool, info.mcpUrl, {
    method,
    headers: { ...headers, ...info.headers, ...(info.apiKey && { authorization: `Bearer ${info.apiKey}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    headersTimeout: run.settings.timeoutMs, bodyTimeout: run.settings.timeoutMs,
  });
}

function plainHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v!]));
}

/** POSTs one JSON-RPC request speaking `revision`'s wire; the reply's final message and session id. */
async function probe(run: RunState, info: TargetInfo, revision: Revision, body: unknown): Promise<Probe | undefined> {
  const spoken = speakRevision(revision, body, info.headers);
  let reply: InspectedReply | undefined;
  try {
    const res = await send(run, info, 'POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...spoken.headers }, spoken.body);
    const sessionHeader = res.headers['mcp-session-id'];
    const sessionId = typeof sessionHeader === 'string' ? sessionHeader : undefined;
    const text = await res.body.text();
    reply = { url: info.mcpUrl, request: `${requestLine('POST', info.mcpUrl, JSON.stringify(body))}, revision detection`, status: res.statusCode, headers: plainHeaders(res.headers), body: text };
    const data = text.startsWith('{') ? text : text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).pop() ?? '';
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      message = undefined;
    }
    return { status: res.statusCode, message, ...(sessionId !== undefined && { sessionId }) };
  } catch {
    return undefined;
  } finally {
    // Not recorded, but a reply of the target all the same: a key in it is the service's failure.
    if (reply) run.keys.inspect(reply);
  }
}

/**
 * A stateful server opened a session for a probe: close it, so detection leaves nothing behind.
 * "Clients that no longer need a particular session ... SHOULD send an HTTP DELETE to the MCP endpoint with the
 * `Mcp-Session-Id` header, to explicitly terminate the session." (MCP 2025-11-25 basic/transports)
 */
async function closeSession(run: RunState, info: TargetInfo, revision: Revision, sessionId: string): Promise<void> {
  try {
    const res = await send(run, info, 'DELETE', { ...speakRevision(revision, undefined, info.headers).headers, 'mcp-session-id': sessionId });
    await res.body.dump();
  } catch {
    // A server that cannot end the session (405 is allowed) or went away: nothing more to do.
  }
}

/**
 * Which revisions the target speaks: each 2025-era revision it echoes from `initialize`, and 2026-07-28
 * when `server/discover` lists it. Each probe speaks the revision it asks about (from 2025-06-18 the
 * `MCP-Protocol-Version` header), so a server that requires its header is still detected. With
 * `--protocol <rev>` only that one is tested.
 */
export async function detectRevisions(run: RunState, info: TargetInfo): Promise<Revision[]> {
  return (await detectRevisionsWithEvidence(run, info)).revisions;
}

/**
 * Detection with the evidence a verdict needs: when no 2025-era revision was negotiated, whether the service
 * refused as the protocol allows. MCP 2026-07-28 (LIF-13): "a modern-only server names its supported
 * versions in any error it returns to `initialize`"; a 2025 server answers `initialize` with a revision it
 * supports (version negotiation). Anything else (-32601, a 5xx, no reply) is the service's refusal.
 */
export async function detectRevisionsWithEvidence(run: RunState, info: TargetInfo): Promise<{ revisions: Revision[]; refusal?: string }> {
  const { protocol } = run.settings;
  if (protocol !== 'auto') return { revisions: [protocol] };
  const spoken: Revision[] = [];
  const answers: string[] = [];
  let namesSupported = false;
  // The modern probe beside the 2025 ones: one round trip, not two.
  const discovering = probe(run, info, MODERN, { jsonrpc: '2.0', id: 1, method: 'server/discover' });
  await Promise.all(LEGACY_REVISIONS.map(async (rev) => {
    const reply = await probe(run, info, rev, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: rev, capabilities: {}, clientInfo: CLIENT_INFO } });
    if (reply?.sessionId !== undefined) await closeSession(run, info, rev, reply.sessionId);
    if (reply?.message?.result?.protocolVersion === rev) spoken.push(rev);
    const error = reply?.message?.error;
    if (Array.isArray(error?.data?.supported) && error.data.supported.length > 0) namesSupported = true;
    answers.push(`initialize ${rev}: ${!reply ? 'no reply' : error ? `HTTP ${reply.status}, JSON-RPC error ${error.code} ${JSON.stringify(String(error.message ?? '')).slice(0, 80)}` : typeof reply.message?.result?.protocolVersion === 'string' ? `negotiated ${reply.message.result.protocolVersion}` : `HTTP ${reply.status}, no JSON-RPC result`}`);
  }));
  const discover = await discovering;
  if (discover?.sessionId !== undefined) await closeSession(run, info, MODERN, discover.sessionId);
  const versions = discover?.message?.result?.supportedVersions;
  if (Array.isArray(versions) && versions.includes(MODERN)) spoken.push(MODERN);
  const revisions = REVISIONS.filter((r) => spoken.includes(r));
  const legacy = revisions.some((r) => r !== MODERN);
  // A negotiated 2025 revision, or a modern-only server's refusal naming what it supports, is the protocol's way.
  if (legacy || (revisions.includes(MODERN) && namesSupported)) return { revisions };
  return { revisions, refusal: `no 2025 revision was negotiated and the refusal names no supported version (${answers.sort().join('; ')})` };
}
