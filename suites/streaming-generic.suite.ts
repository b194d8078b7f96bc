import { type CheckContext, defineSuite } from '../src/engine/check.js';
import { genericRound, STREAM_SLOTS, type GenericStream } from '../src/judging/generic-streams.js';
import {
  describeReply, firstResponse, isProgress, progressOf, TOKEN_VARIANTS, VARIANTS, verifyEndsAfter, verifyIncreasing, verifyNoProgress, verifyNothingAfter, verifyResponseId,
  verifyTokens, type Variant,
} from '../src/mcp/stream-reading.js';
import type { WireResponse } from '../src/wire/client.js';

const { check, describe, seal } = defineSuite('streaming-generic');

/**
 * The streaming rows for any MCP server (the generic profile): each streaming call (declared by the profile, or a
 * tool found to send progress when given a progress token: src/judging/generic-streams.ts) with a string token, an
 * integer token and none, judged by MCP's rules on progress and on the response that ends a stream. The
 * service's five tools are suites/streaming.suite.ts's.
 */

/** The stream of a slot and variant, its exchanges attached to the check; not applicable when the slot has no call. */
async function streamOf(c: CheckContext, slot: number, variant: Variant): Promise<{ s: GenericStream; res: WireResponse; deadlineMs: number }> {
  const round = await genericRound(c.run, c.target);
  const call = round.calls[slot - 1];
  if (!call) {
    c.http.log.push(...round.discovery);
    // The probe's calls are why no tool was found to stream: kept whole once, with the first slot's first variant.
    if (slot === 1 && variant === VARIANTS[0]) c.keepWire();
    c.notApplicable(`not applicable: no streaming call ${slot} (${round.why})`);
  }
  const s = round.streams.find((x) => x.call === call && x.variant === variant)!;
  c.http.log.push(...s.exchanges);
  c.observe(`streaming call ${slot}: ${s.call.tool} ${JSON.stringify(s.call.args)} (${s.call.declared ? 'declared by the profile' : `found to send progress${s.call.onStandalone ? ' on the session\'s standalone GET stream' : ''}`})`);
  if (s.elsewhere.length > 0) {
    c.http.log.push(...round.standalone!.exchanges);
    c.observe(`${s.elsewhere.length} progress notification(s) for this call's token came on the session's standalone GET stream, not in its reply (stream-get-unrelated judges where they went)`);
  }
  if (!s.res) throw Object.assign(new Error(`the ${s.call.tool} request failed: ${s.error}`), { expected: 'a reply', actual: s.error });
  return { s, res: s.res, deadlineMs: round.deadlineMs };
}

/** A call's progress: in its reply, else what came for its token on the session's standalone stream. */
function progressWherever(s: GenericStream, res: WireResponse): any[] {
  const inReply = progressOf(res).map((p) => p.m);
  return inReply.length > 0 ? inReply : s.elsewhere;
}

describe('streaming (any server)', () => {
  // "The server MAY send JSON-RPC requests and notifications on the stream. These messages SHOULD be unrelated to
  // any concurrently-running JSON-RPC request from the client." (basic/transports, Listening for Messages from the Server)
  check({ ids: 'stream-get-unrelated', name: 'the standalone GET stream carries no progress of a request still running', generic: true, run: async (c: CheckContext) => {
    // Asked first: a server without sessions (the service among them) costs no round.
    if (c.target.sessionId === undefined) c.notApplicable('not applicable: the server keeps no session, so it has no standalone stream of a session to read');
    const standalone = (await genericRound(c.run, c.target)).standalone;
    if (!standalone) c.notApplicable('not applicable: no session of its own could be opened for the calls, so no standalone stream was read');
    c.http.log.push(...standalone.exchanges);
    const res = standalone.res;
    if (!res) c.notTestable(`the GET that opens the standalone stream got no reply: ${standalone.error}`);
    if (res.status !== 200 || res.mediaType !== 'text/event-stream') c.notApplicable(`not applicable: GET answered ${describeReply(res)}, so the server offers no standalone stream`);
    if (standalone.tokens.length === 0) c.notTestable('no request with a progress token ran while the standalone stream was open (no tool was called)');
    const related = standalone.messages.filter((m: any) => isProgress(m) && standalone.tokens.some((t) => String(t) === String(m.params?.progressToken)));
    c.verify(related.length === 0, `${related.length} progress notification(s) of requests still running came on the standalone GET stream instead of their replies`,
      'no message about a running request on the standalone stream', related.slice(0, 5));
    c.observe(`the standalone GET stream stayed open while ${standalone.tokens.length} requests with progress tokens ran in its session; ${standalone.messages.length} message(s) came on it, none about them`);
  } });

  for (let slot = 1; slot <= STREAM_SLOTS; slot++) {
    for (const variant of VARIANTS) {
      // "id: ... It MUST be the same as the value of the id member in the Request Object." (JSON-RPC 2.0 §5)
      check({ ids: 'stream-final-result-id', name: `streaming call ${slot} (${variant}): the reply carries the JSON-RPC result with the request's id`, generic: 'only', run: async (c) => {
        const { s, res } = await streamOf(c, slot, variant);
        verifyResponseId(c, res, s.id);
      } });

      // "Progress notifications MUST stop after completion." (MCP progress, Implementation Notes)
      check({ ids: 'stream-nothing-after-result', name: `streaming call ${slot} (${variant}): nothing follows the result`, generic: 'only', run: async (c) => {
        const { res } = await streamOf(c, slot, variant);
        const final = firstResponse(res);
        if (!final) c.notTestable(`the reply carries no JSON-RPC response, so nothing marks its end (${describeReply(res)}; stream-final-result-id judges it)`);
        verifyNothingAfter(c, res, final!);
      } });

      // "After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream."
      check({ ids: 'stream-closes', name: `streaming call ${slot} (${variant}): the stream ends after the result`, generic: 'only', run: async (c) => {
        const { res, deadlineMs } = await streamOf(c, slot, variant);
        if (res.mediaType !== 'text/event-stream') c.notApplicable(`not applicable: the reply is no SSE stream (${describeReply(res)})`);
        const final = firstResponse(res);
        if (!final) c.notTestable(`no JSON-RPC response before ${res.closed ? 'the stream ended' : `the ${deadlineMs} ms deadline`}: no result to end after (stream-final-result-id judges it)`);
        verifyEndsAfter(c, res, final!, deadlineMs);
      } });
    }

    for (const variant of TOKEN_VARIANTS) {
      // The profile declares the call streaming: it expects progress before the result.
      check({ ids: 'stream-progress-sent', name: `streaming call ${slot} (${variant}): progress notifications precede the result`, generic: 'only', run: async (c) => {
        const { s, res } = await streamOf(c, slot, variant);
        if (!s.call.declared) c.notApplicable('not applicable: the profile declares no streaming call; progress is optional in MCP ("MAY send progress notifications")');
        const final = firstResponse(res);
        const before = progressOf(res).filter((p) => !final || p.index < final.index);
        // Progress sent on the standalone stream was sent: where it went is stream-get-unrelated's row.
        c.verify(before.length > 0 || s.elsewhere.length > 0, `no notifications/progress before the result (${describeReply(res)}), nor on the session's standalone GET stream, though the profile declares ${s.call.tool} a streaming call`, 'at least one notifications/progress', res.messages ?? res.text.slice(0, 300));
      } });

      // "Progress notifications MUST only reference tokens that: Were provided in an active request": the exact
      // token, with its JSON type.
      check({ ids: 'stream-progress-token', name: `streaming call ${slot} (${variant}): every progress notification carries the exact token`, generic: 'only', run: async (c) => {
        const { s, res } = await streamOf(c, slot, variant);
        const progress = progressWherever(s, res);
        if (progress.length === 0) c.notApplicable(`not applicable: no progress notification in this reply (${describeReply(res)}) or on a standalone stream, so no token to check`);
        verifyTokens(c, progress, s.token);
      } });

      // "The `progress` value MUST increase with each notification, even if the total is unknown."
      check({ ids: 'stream-progress-increasing', name: `streaming call ${slot} (${variant}): progress strictly increases`, generic: 'only', run: async (c) => {
        const { s, res } = await streamOf(c, slot, variant);
        const progress = progressWherever(s, res);
        if (progress.length === 0) c.notApplicable(`not applicable: no progress notification in this reply (${describeReply(res)}) or on a standalone stream`);
        const values = verifyIncreasing(c, progress);
        c.observe(`progress values: ${JSON.stringify(values)}`);
      } });
    }

    // "Progress notifications MUST only reference tokens that: Were provided in an active request": a request
    // without a progressToken provided none, so it gets no progress.
    check({ ids: 'stream-no-token-no-progress', name: `streaming call ${slot} (no token): no progress notification`, generic: 'only', run: async (c) => {
      const { res } = await streamOf(c, slot, 'no token');
      verifyNoProgress(c, res);
    } });
  }
});

export default seal();
