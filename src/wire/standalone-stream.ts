import type { WireClient, WireResponse } from './client.js';

/**
 * A session's standalone stream: "The client MAY issue an HTTP GET to the MCP endpoint. This can be used to
 * open an SSE stream, allowing the server to communicate to the client, without the client first sending data
 * via HTTP POST." Held open while other requests of the same session run, and read as it goes: a server that
 * answers its POSTs with JSON may send their notifications here instead.
 */
export interface StandaloneStream {
  /** The JSON-RPC messages that came on it so far, in arrival order. */
  readonly messages: unknown[];
  /** Stops reading; the reply as far as it was read, or why there was none. */
  close(): Promise<{ res?: WireResponse; error?: string }>;
}

/** Opens it with `headers` (the session's, its key and revision) through `client`, whose log records it; read for at most `maxMs`. */
export function openStandaloneStream(client: WireClient, url: string, headers: Record<string, string>, maxMs: number): StandaloneStream {
  const abort = new AbortController();
  const messages: unknown[] = [];
  const { 'content-type': _type, ...rest } = headers;
  const reply = client.request(url, { method: 'GET', headers: { ...rest, accept: 'text/event-stream' }, signal: abort.signal, timeoutMs: maxMs, onEvent: (m) => messages.push(m) })
    .then((res) => ({ res }), (err: Error) => ({ error: err.message }));
  return {
    messages,
    close: () => {
      abort.abort(new Error('the harness stopped reading the standalone stream'));
      return reply;
    },
  };
}
