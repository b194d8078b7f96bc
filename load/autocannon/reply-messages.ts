/**
 * The JSON-RPC messages of one reply body as autocannon hands it over (the whole body, de-chunked, as a
 * string): one message for a JSON reply, the `data:` of every event for an SSE reply (parsed by the
 * harness's reader, src/wire/sse-reader.ts). Undefined when the body cannot be parsed.
 */
import { createSseReader } from '../../src/wire/sse-reader.js';

/** A header of autocannon's `onResponse` headers object, whose names keep the server's case. */
export function headerValue(headers: Record<string, unknown> | undefined, name: string): string {
  if (!headers) return '';
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? String(v[0] ?? '') : String(v ?? '');
  }
  return '';
}

export function isEventStream(contentType: string): boolean {
  return /^text\/event-stream\b/i.test(contentType);
}

export function replyMessages(contentType: string, body: string): unknown[] | undefined {
  try {
    if (isEventStream(contentType)) {
      const messages: unknown[] = [];
      const reader = createSseReader((event) => messages.push(JSON.parse(event.data)));
      reader.feed(Buffer.from(body));
      reader.end();
      return messages;
    }
    return [JSON.parse(body)];
  } catch {
    return undefined;
  }
}
