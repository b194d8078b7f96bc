import type { PreflightReply } from './key-probe.js';

/**
 * Whether the first reply of a url run came from an MCP endpoint at all. "The client MUST use HTTP POST to
 * send JSON-RPC messages to the MCP endpoint" (MCP basic/transports, Streamable HTTP): an endpoint that does
 * not take POST (404, 405, 501), or that answers with a web page or with a 2xx that holds no JSON-RPC message,
 * is not an MCP server, and judging it row by row would spend bootstraps on a wrong address and report a
 * static file server's "failures". Anything an MCP server may answer a bare `ping` with passes: a 401 or 403
 * (auth first), a JSON-RPC error at 4xx (no session yet, a header missing), a plain-text 4xx (some SDKs),
 * a 5xx other than 501 (the service failing is the run's to judge), a 2xx JSON-RPC reply or event stream.
 * Returns why it is not MCP, or undefined.
 */
export function notMcpReason(reply: PreflightReply): string | undefined {
  const { status, contentType, head } = reply;
  const said = `${status}${contentType ? ` (${contentType.split(';')[0]})` : ''}`;
  if (status === 405 || status === 501) return `answered ${said} to a POST: an MCP endpoint takes JSON-RPC by POST`;
  if (status === 401 || status === 403 || status === 429) return undefined;
  if (/^text\/html|^application\/xhtml/.test(contentType) || /^\s*<(!doctype html|html)/i.test(head)) return `answered ${said} with a web page, not JSON-RPC`;
  if (status >= 200 && status < 300 && status !== 202) {
    if (contentType.startsWith('text/event-stream')) return undefined;
    if (!holdsJsonRpc(head)) return `answered ${said} with no JSON-RPC message (${JSON.stringify(head.slice(0, 80))})`;
  }
  return undefined;
}

/** The start of a body looks like a JSON-RPC message (or a batch of them): it may be cut at 2 KB. */
function holdsJsonRpc(head: string): boolean {
  return /^\s*[[{]/.test(head) && /"jsonrpc"\s*:/.test(head);
}
