import { check, type CheckContext, describe } from '../src/check.js';
import { genericRound, STREAM_SLOTS, type GenericStream } from '../src/generic-streams.js';
import {
  describeReply, firstResponse, progressOf, TOKEN_VARIANTS, VARIANTS, verifyEndsAfter, verifyIncreasing, verifyNoProgress, verifyNothingAfter, verifyResponseId,
  verifyTokens, type Variant,
} from '../src/stream-reading.js';
import type { WireResponse } from '../src/wire/client.js';

/**
 * The streaming rows for any MCP server (the generic profile): each streaming call (declared by the profile, or a
 * tool found to send progress when given a progress token: src/generic-streams.ts) with a string token, an
 * integer token and none, judged by MCP's rules on progress and on the response that ends a stream. The
 * service's five tools are suites/streaming.suite.ts's.
 */

/** The stream of a slot and variant, its exchanges attached to the check; not applicable when the slot has no call. */
async function streamOf(c: CheckContext, slot: number, variant: Variant): Promise<{ s: GenericStream; res: WireResponse; deadlineMs: number }> {
  const round = await genericRound(c.target);
  const call = round.calls[slot - 1];
  if (!call) {
    c.http.log.push(...round.discovery);
    // The probe's calls are why no tool was found to stream: kept whole once, with the first slot's first variant.
    if (slot === 1 && variant === VARIANTS[0]) c.keepWire();
    c.notApplicable(`not applicable: no streaming call ${slot} (${round.why})`);
  }
  const s = round.streams.find((x) => x.call === call && x.variant === variant)!;
  c.http.log.push(...s.exchanges);
  c.observe(`streaming call ${slot}: ${s.call.tool} ${JSON.stringify(s.call.args)} (${s.call.declared ? 'declared by the profile' : 'found to send progress'})`);
  if (!s.res) throw Object.assign(new Error(`the ${s.call.tool} request failed: ${s.error}`), { expected: 'a reply', actual: s.error });
  return { s, res: s.res, deadlineMs: round.deadlineMs };
}

describe('streaming (any server)', () => {
  for (let slot = 1; slot <= STREAM_SLOTS; slot++) {
    for (const variant of VARIANTS) {
      // "id: ... It MUST be the same as the value of the id member in the Request Object." (JSON-RPC 2.0 §5)
      check('stream-final-result-id', `streaming call ${slot} (${variant}): the reply carries the JSON-RPC result with the request's id`, async (c) => {
        const { s, res } = await streamOf(c, slot, variant);
        verifyResponseId(c, res, s.id);
      }, { generic: 'only' });

      // "Progress notifications MUST stop after completion." (MCP progress, Implementation Notes)
      check('stream-nothing-after-result', `streaming call ${slot} (${variant}): nothing follows the result`, async (c) => {
        const { res } = await streamOf(c, slot, variant);
        const final = firstResponse(res);
        if (!final) c.notTestable(`the reply carries no JSON-RPC response, so nothing marks its end (${describeReply(res)}; stream-final-result-id judges it)`);
        verifyNothingAfter(c, res, final!);
      }, { generic: 'only' });

      // "After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream."
      check('stream-closes', `streaming call ${slot} (${variant}): the stream ends after the result`, async (c) => {
        const { res, deadlineMs } = await streamOf(c, slot, variant);
        if (res.mediaType !== 'text/event-stream') c.notApplicable(`not applicable: the reply is no SSE stream (${describeReply(res)})`);
        const final = firstResponse(res);
        if (!final) c.notTestable(`no JSON-RPC response before ${res.closed ? 'the stream ended' : `the ${deadlineMs} ms deadline`}: no result to end after (stream-final-result-id judges it)`);
        verifyEndsAfter(c, res, final!, deadlineMs);
      }, { generic: 'only' });
    }

    for (const variant of TOKEN_VARIANTS) {
      // The profile declares the call streaming: it expects progress before the result.
      check('stream-progress-sent', `streaming call ${slot} (${variant}): progress notifications precede the result`, async (c) => {
        const { s, res } = await streamOf(c, slot, variant);
        if (!s.call.declared) c.notApplicable('not applicable: the profile declares no streaming call; progress is optional in MCP ("MAY send progress notifications")');
        const final = firstResponse(res);
        const before = progressOf(res).filter((p) => !final || p.index < final.index);
        c.verify(before.length > 0, `no notifications/progress before the result (${describeReply(res)}), though the profile declares ${s.call.tool} a streaming call`, 'at least one notifications/progress', res.messages ?? res.text.slice(0, 300));
      }, { generic: 'only' });

      // "Progress notifications MUST only reference tokens that: Were provided in an active request": the exact
      // token, with its JSON type.
      check('stream-progress-token', `streaming call ${slot} (${variant}): every progress notification carries the exact token`, async (c) => {
        const { s, res } = await streamOf(c, slot, variant);
        if (progressOf(res).length === 0) c.notApplicable(`not applicable: no progress notification in this reply (${describeReply(res)}), so no token to check`);
        verifyTokens(c, res, s.token);
      }, { generic: 'only' });

      // "The `progress` value MUST increase with each notification, even if the total is unknown."
      check('stream-progress-increasing', `streaming call ${slot} (${variant}): progress strictly increases`, async (c) => {
        const { res } = await streamOf(c, slot, variant);
        if (progressOf(res).length === 0) c.notApplicable(`not applicable: no progress notification in this reply (${describeReply(res)})`);
        const values = verifyIncreasing(c, res);
        c.observe(`progress values: ${JSON.stringify(values)}`);
      }, { generic: 'only' });
    }

    // "Progress notifications MUST only reference tokens that: Were provided in an active request": a request
    // without a progressToken provided none, so it gets no progress.
    check('stream-no-token-no-progress', `streaming call ${slot} (no token): no progress notification`, async (c) => {
      const { res } = await streamOf(c, slot, 'no token');
      verifyNoProgress(c, res);
    }, { generic: 'only' });
  }
});
