/**
 * Judges one reply of a load request, the same way in both engines. Plain module (no Node or k6 imports):
 * each engine parses the body its own way (Node with the harness's SSE reader, k6 with its own splitter)
 * and hands the JSON-RPC messages here.
 */
import type { LoadRequest } from './scenarios.ts';

/** Every way a load request can go wrong, as counted in "errors by kind". */
export const ERROR_KINDS = [
  'http-429',
  'http-4xx',
  'http-5xx',
  'content-type',
  'unparseable',
  'jsonrpc-error',
  'tool-error',
  'wrong-id',
  'stream-no-result',
  'stream-few-progress',
  'timeout',
  'connection',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export interface ReplyVerdict {
  ok: boolean;
  kind?: ErrorKind;
  /** Progress notifications before the result (streaming requests). */
  progress: number;
}

type Message = Record<string, unknown>;

const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v);

/** HTTP status first: a 429 is throttling, not a broken reply. */
export function statusKind(status: number): ErrorKind | undefined {
  if (status === 429) return 'http-429';
  if (status >= 500) return 'http-5xx';
  if (status < 200 || status >= 300) return 'http-4xx';
  return undefined;
}

/**
 * `messages`: the JSON-RPC messages of the body (one for a JSON reply, every `data:` of an SSE stream),
 * or undefined when the body could not be parsed.
 */
export function checkReply(request: LoadRequest, status: number, contentType: string, messages: unknown[] | undefined): ReplyVerdict {
  const byStatus = statusKind(status);
  if (byStatus) return { ok: false, kind: byStatus, progress: 0 };
  const sse = /^text\/event-stream\b/i.test(contentType);
  // "For these five tools the response Content-Type is text/event-stream"; "All other tools reply with one JSON-RPC reply."
  if (request.streaming ? !sse : !/^application\/json\b/i.test(contentType)) return { ok: false, kind: 'content-type', progress: 0 };
  if (!messages || messages.length === 0 || !messages.every(isObject)) return { ok: false, kind: 'unparseable', progress: 0 };
  const progress = messages.filter((m) => (m as Message).method === 'notifications/progress').length;
  const final = messages[messages.length - 1] as Message;
  if (!('result' in final) && !('error' in final)) return { ok: false, kind: 'stream-no-result', progress };
  if (final.id !== request.body.id) return { ok: false, kind: 'wrong-id', progress };
  if ('error' in final) return { ok: false, kind: 'jsonrpc-error', progress };
  if (isObject(final.result) && final.result.isError === true) return { ok: false, kind: 'tool-error', progress };
  // "The body carries progress notifications, then ends with a final result event."
  if (request.streaming && progress < request.streaming.minProgress) return { ok: false, kind: 'stream-few-progress', progress };
  return { ok: true, progress };
}
