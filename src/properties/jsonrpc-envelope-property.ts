import fc from 'fast-check';
import type { CheckContext } from '../engine/check.js';
import type { Revision } from '../catalog/types.js';
import { passedDeadline, type WireResponse } from '../wire/client.js';
import { isObject } from '../mcp/tool-result.js';
import { bodyOf, classify, envelopeArb, showEnvelope, type Classified, type Envelope, type Kind } from './jsonrpc-envelopes.js';
import { responsesOf } from './jsonrpc-replies.js';
import { freshKey } from './workspaces.js';
import { withOwnSessions, type OwnSessions } from '../targets/own-sessions.js';

/**
 * How the envelope properties run: a live key of their own, envelopes POSTed with it under the 2025-era
 * revisions the target speaks, each reply handed to a judge with its responses and a label.
 */

const MODERN = '2026-07-28';
/** Cheap runs (one loopback POST): a cap keeps the envelope checks to a few seconds together. */
export const MAX_RUNS = 300;
/** A JSON reply on loopback takes a few ms: a request still unanswered after this is a hang. */
const REPLY_DEADLINE_MS = 1000;

export interface EnvelopeSetup {
  key: string | null;
  revisions: (Revision | undefined)[];
  /** The sessions the generated ids go to on a server that keeps sessions (each id new in its session). */
  sessions: OwnSessions;
}

/** A live key of the check's own (no rate limit on the embedded target), and the revisions to send under. */
async function prepareEnvelopes(c: CheckContext, purpose: string, sessions: OwnSessions): Promise<EnvelopeSetup> {
  // These envelopes are the 2025-era wire's (a 2026-07-28 server refuses any without its per-request _meta
  // first); that revision's envelope rules are the scenario rows' to check.
  if (c.target.revisions.length > 0 && c.target.revisions.every((r) => r === MODERN)) {
    c.notTestable(`the envelope properties send 2025-era JSON-RPC envelopes; the target speaks only ${MODERN}, where every request must carry the _meta envelope`);
  }
  const key = c.target.admin || c.target.canBootstrap || c.target.apiKey ? await freshKey(c, purpose) : null;
  const live = await c.mcp.post({ jsonrpc: '2.0', id: c.run.ids.next(), method: 'tools/list' }, { key });
  c.verify(live.status === 200 && isObject(responsesOf(live)[0]?.result), key === null ? 'tools/list is served (the control before the envelopes)' : 'tools/list with the key works (the control before the envelopes)', 200, c.brief(live));
  // No header (the server assumes 2025-03-26), or a 2025-era revision the target negotiates.
  return { key, revisions: [undefined, ...c.target.revisions.filter((r) => r !== MODERN)], sessions };
}

/**
 * POSTs a body. A reply that does not come within the deadline ends the search as not testable, with the
 * envelope: the deadline is the harness's choice (short on a server it started, where a JSON reply takes a few
 * ms; the run's --timeout on a deployment), so a slow reply proves no protocol error. A reply that fails in
 * another way before the deadline (a reset) fails the run.
 */
export async function postBody(c: CheckContext, s: EnvelopeSetup, body: string, revision: string | undefined): Promise<WireResponse> {
  const timeoutMs = c.target.kind === 'url' ? c.settings.timeoutMs : REPLY_DEADLINE_MS;
  try {
    const session = await s.sessions.headersFor(body, revision as Revision | undefined);
    return await c.mcp.post(undefined, { key: s.key, raw: body, timeoutMs, headers: { ...session, ...(revision && { 'mcp-protocol-version': revision }) } });
  } catch (err) {
    const label = `${body}${revision ? ` (MCP-Protocol-Version: ${revision})` : ''}`;
    if (passedDeadline(err)) return c.notTestable(`${label} was not answered within ${timeoutMs} ms, the harness's deadline: a slow reply proves no protocol error`);
    return c.verify(false, `${label} is answered`, 'a reply', (err as Error).message) as never;
  }
}

const sent = (revisions: (Revision | undefined)[]) => fc.record({ envelope: envelopeArb, revision: fc.constantFrom(...revisions) });

/** One envelope sent and answered: what the judges of the envelope properties look at. */
export interface Exchanged { envelope: Envelope; what: Classified; res: WireResponse; responses: any[]; label: string }

/** Runs `search` with the envelopes' setup (prepareEnvelopes), then ends the sessions its ids went to. */
export function withEnvelopes(c: CheckContext, purpose: string, search: (s: EnvelopeSetup) => Promise<void>): Promise<void> {
  return withOwnSessions(c.run, c.target, async (sessions) => search(await prepareEnvelopes(c, purpose, sessions)));
}

/** An envelope property: its own key, a generated envelope sent under a generated revision, the reply judged. */
export function envelopeProperty(c: CheckContext, id: string, judge: (x: Exchanged) => void, kinds?: Kind[]): Promise<void> {
  return withEnvelopes(c, id, async (s) => {
    await c.property({
      id,
      arbitrary: kinds ? sent(s.revisions).filter(({ envelope }) => kinds.includes(classify(envelope).kind)) : sent(s.revisions),
      maxRuns: MAX_RUNS,
      show: ({ envelope, revision }) => showEnvelope(envelope, revision),
      predicate: async ({ envelope, revision }) => {
        const res = await postBody(c, s, bodyOf(envelope), revision);
        judge({ envelope, what: classify(envelope), res, responses: responsesOf(res), label: showEnvelope(envelope, revision) });
      },
    });
  });
}
