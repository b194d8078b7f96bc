import type { CheckContext } from '../engine/check.js';
import type { WireResponse } from '../wire/client.js';

/**
 * Reading a tools/call reply as the streaming rows do: its JSON-RPC messages in arrival order, the progress
 * notifications among them, and the response that ends it. A JSON reply is one message.
 */

/** How a streaming call is sent: with a string progress token, an integer one, or none (both streaming suites send all three). */
export type Variant = 'string token' | 'integer token' | 'no token';
export const VARIANTS: Variant[] = ['string token', 'integer token', 'no token'];
export const TOKEN_VARIANTS: Variant[] = ['string token', 'integer token'];

/** The JSON-RPC messages of a reply with the index of their SSE event (a JSON reply is one message). */
export function messagesOf(res: WireResponse): { m: any; at: number; index: number }[] {
  if (res.events) return res.events.map((e, index) => ({ m: res.messages![index], at: e.at, index }));
  return res.json === undefined ? [] : [{ m: res.json, at: res.endAt, index: 0 }];
}

export const isResponse = (m: any) => m !== null && typeof m === 'object' && !Array.isArray(m) && !('method' in m) && ('result' in m || 'error' in m);
export const isProgress = (m: any) => m !== null && typeof m === 'object' && m.method === 'notifications/progress';

export function progressOf(res: WireResponse) {
  return messagesOf(res).filter((x) => isProgress(x.m));
}

export function firstResponse(res: WireResponse) {
  return messagesOf(res).find((x) => isResponse(x.m));
}

export function describeReply(res: WireResponse): string {
  return `${res.status} ${res.mediaType || '(no content type)'}, ${res.events ? `${res.events.length} SSE events` : `${res.text.length} bytes`}`;
}

// --- judging a reply: the rules both streaming suites apply (suites/streaming.suite.ts, streaming-generic.suite.ts)

/** What judging needs of a check. */
type Judge = Pick<CheckContext, 'verify'>;

/** After the final result, the stream must end within this long (stream-closes). */
export const CLOSE_GRACE_MS = 2000;

/** The response in the reply, with "jsonrpc": "2.0" and the request's id (JSON-RPC 2.0 §5); returns it. */
export function verifyResponseId(c: Judge, res: WireResponse, id: string | number): any {
  const final = firstResponse(res);
  c.verify(final !== undefined, `no JSON-RPC response in the reply (${describeReply(res)})`, { jsonrpc: '2.0', id, result: '...' }, res.messages ?? res.text.slice(0, 500));
  const m = final!.m;
  c.verify(m.jsonrpc === '2.0', 'the response has jsonrpc "2.0"', '2.0', m.jsonrpc);
  c.verify(m.id === id, `the response id is ${JSON.stringify(m.id)} (${typeof m.id}), not the request's ${JSON.stringify(id)} (${typeof id})`, id, m.id);
  return m;
}

/** "Progress notifications MUST stop after completion": no event after the response `final`. */
export function verifyNothingAfter(c: Judge, res: WireResponse, final: { index: number }): void {
  const after = messagesOf(res).filter((x) => x.index > final.index);
  c.verify(after.length === 0, `${after.length} event(s) after the result`, 'no event after the result', after.map((x) => x.m ?? res.events?.[x.index]?.data));
}

/** "After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream": within CLOSE_GRACE_MS of `final`. */
export function verifyEndsAfter(c: Judge, res: WireResponse, final: { at: number }, deadlineMs: number): void {
  if (res.readUntil === 'response') {
    c.verify(false, `the stream was still open ${Math.round(res.endAt - final.at)} ms after the result (the harness stopped reading there)`, `closed within ${CLOSE_GRACE_MS} ms of the result`, 'still open');
  }
  if (!res.closed) {
    c.verify(false, `the stream was still open at the ${deadlineMs} ms deadline, ${Math.round(deadlineMs - final.at)} ms after the result`, `closed within ${CLOSE_GRACE_MS} ms of the result`, 'still open');
  }
  const lag = res.endAt - final.at;
  c.verify(lag <= CLOSE_GRACE_MS, `the stream ended ${Math.round(lag)} ms after the result`, `<= ${CLOSE_GRACE_MS} ms`, Math.round(lag));
}

/** Every progress notification (`progress`: the messages, in arrival order) carries exactly the request's token, with its JSON type. */
export function verifyTokens(c: Judge, progress: readonly any[], token: string | number | undefined): void {
  for (const m of progress) {
    const got = m.params?.progressToken;
    c.verify(got === token, `a progress notification carries ${JSON.stringify(got)} (${typeof got}), not the request's ${JSON.stringify(token)} (${typeof token})`, token, got ?? null);
  }
}

/** "The `progress` value MUST increase with each notification": numbers, strictly increasing, in arrival order; returns them. */
export function verifyIncreasing(c: Judge, progress: readonly any[]): any[] {
  const values = progress.map((m) => m.params?.progress);
  c.verify(values.every((v) => typeof v === 'number' && Number.isFinite(v)), 'every progress value is a number', 'numbers', values);
  for (let i = 1; i < values.length; i++) c.verify(values[i] > values[i - 1], `progress went from ${values[i - 1]} to ${values[i]}`, 'strictly increasing', values);
  return values;
}

/** A request without a progressToken provided none: no progress notification in its reply. */
export function verifyNoProgress(c: Judge, res: WireResponse): void {
  const progress = progressOf(res);
  c.verify(progress.length === 0, `${progress.length} notifications/progress without a progressToken`, 'none', progress.map((p) => p.m));
}
