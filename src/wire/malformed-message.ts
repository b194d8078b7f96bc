/**
 * What makes a POSTed body a malformed or unexpected JSON-RPC message, in the words of the rule it breaks:
 * the messages `jsonrpc-no-5xx` is about ("A malformed or unexpected JSON-RPC message on the MCP endpoint is
 * a client error: a 4xx or a JSON-RPC error, never a 5xx"). Undefined: a well-formed request or notification
 * of a method MCP defines.
 */

/** Methods MCP defines (every revision the harness speaks); anything else is a method the server need not know. */
const MCP_METHODS = new Set([
  'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list',
  'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel',
  'sampling/createMessage', 'elicitation/create', 'roots/list', 'server/discover', 'tasks/get', 'tasks/list', 'tasks/result', 'tasks/cancel',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why one message of a body is malformed or unexpected, or undefined. */
function messageFault(m: unknown): string | undefined {
  if (!isObject(m)) return `a message that is not a JSON object (${m === null ? 'null' : Array.isArray(m) ? 'an array' : typeof m})`;
  if (m.jsonrpc !== '2.0') return `"jsonrpc" is ${JSON.stringify(m.jsonrpc) ?? 'missing'}, not "2.0"`;
  if (!('method' in m)) return 'result' in m || 'error' in m ? 'a response to no request the server sent' : 'no "method" member';
  if (typeof m.method !== 'string') return `"method" is not a string (${JSON.stringify(m.method)})`;
  if ('id' in m && !(typeof m.id === 'string' || typeof m.id === 'number' || m.id === null)) return `"id" is neither a string nor a number (${JSON.stringify(m.id)})`;
  if ('params' in m && !(isObject(m.params) || Array.isArray(m.params))) return `"params" is neither an object nor an array (${JSON.stringify(m.params)})`;
  if (m.method === 'tools/call') {
    if (!('params' in m)) return 'tools/call without params';
    if (Array.isArray(m.params)) return `tools/call with params ${JSON.stringify(m.params).slice(0, 40)}`;
    if (typeof (m.params as Record<string, unknown>).name !== 'string') return 'tools/call without a tool name';
  }
  if (!m.method.startsWith('notifications/') && !MCP_METHODS.has(m.method)) return `the method ${JSON.stringify(m.method.slice(0, 60))}, which MCP does not define`;
  return undefined;
}

/** Why a POSTed body is a malformed or unexpected JSON-RPC message (or batch), or undefined when it is neither. */
export function malformedOrUnexpected(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'a body that is not JSON';
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return 'an empty batch';
    for (const m of parsed) {
      const fault = messageFault(m);
      if (fault) return `a batch holding ${fault}`;
    }
    return undefined;
  }
  return messageFault(parsed);
}
