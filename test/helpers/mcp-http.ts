import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseEvent { data: string; event?: string; id?: string; at: number }

export interface RpcReply {
  status: number;
  headers: Headers;
  /** Parsed JSON body for application/json replies. */
  json?: any;
  /** Raw text for non-JSON, non-SSE replies. */
  text?: string;
  /** SSE events with arrival times (ms since the request was sent). */
  events?: SseEvent[];
  /** Parsed `data` of each SSE event. */
  messages?: any[];
}

/** POSTs a JSON-RPC body to the MCP endpoint and reads the whole reply, SSE or JSON. */
export async function post(url: string, body: unknown, options: { key?: string; headers?: Record<string, string>; raw?: string; signal?: AbortSignal } = {}): Promise<RpcReply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body: options.raw ?? JSON.stringify(body), signal: options.signal });
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    const events: SseEvent[] = [];
    const parser = createParser({ onEvent: (e: EventSourceMessage) => events.push({ data: e.data, event: e.event, id: e.id, at: performance.now() - started }) });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    return { status: res.status, headers: res.headers, events, messages: events.map((e) => JSON.parse(e.data)) };
  }
  const text = await res.text();
  if (type.startsWith('application/json') && text !== '') return { status: res.status, headers: res.headers, json: JSON.parse(text) };
  return { status: res.status, headers: res.headers, text };
}

let nextId = 1;

export function call(name: string, args: Record<string, unknown> = {}, extra: { id?: string | number; progressToken?: string | number } = {}) {
  const params: Record<string, unknown> = { name, arguments: args };
  if (extra.progressToken !== undefined) params._meta = { progressToken: extra.progressToken };
  return { jsonrpc: '2.0', id: extra.id ?? nextId++, method: 'tools/call', params };
}

/** The final JSON-RPC response of a reply, SSE or JSON. */
export function finalMessage(reply: RpcReply): any {
  return reply.messages ? reply.messages[reply.messages.length - 1] : reply.json;
}
