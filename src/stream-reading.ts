import type { WireResponse } from './wire/client.js';

/**
 * Reading a tools/call reply as the streaming rows do: its JSON-RPC messages in arrival order, the progress
 * notifications among them, and the response that ends it. A JSON reply is one message.
 */

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
