import type { WireResponse } from '../wire/client.js';
import { isObject } from '../mcp/tool-result.js';

/** Reading JSON-RPC replies as the envelope properties judge them: the responses they carry, an id digit for digit, a malformed response. */

/** The JSON-RPC messages of a reply: SSE messages, a JSON array's items, or the JSON object. */
function messagesOf(res: WireResponse): unknown[] {
  if (res.messages) return res.messages;
  if (Array.isArray(res.json)) return res.json;
  return res.json === undefined ? [] : [res.json];
}

/**
 * Whether a message could be a JSON-RPC message at all: a member JSON-RPC defines (an `error` only as an
 * object). A body without one (a serialized exception, `{"error":"internal_error"}`) is a reply that holds no
 * response: evidence on the rows of the input's own rule and of the 5xx, not on rows about what a response says.
 */
export function jsonRpcLike(m: unknown): m is Record<string, any> {
  return isObject(m) && ('jsonrpc' in m || 'id' in m || 'result' in m || 'method' in m || isObject(m.error));
}

/** Responses among them (the final message of a stream; notifications before it are not responses). */
export function responsesOf(res: WireResponse): any[] {
  return messagesOf(res).filter((m) => isObject(m) && !('method' in m));
}

/**
 * The JSON text of a top-level member of a JSON object (undefined when absent): lets an integer id beyond
 * 2^53 be compared digit for digit, which JSON.parse cannot.
 */
export function rawMember(source: string, key: string): string | undefined {
  let i = 0;
  const ws = () => {
    while (i < source.length && /\s/.test(source[i]!)) i++;
  };
  const skipString = () => {
    i++;
    while (i < source.length && source[i] !== '"') i += source[i] === '\\' ? 2 : 1;
    i++;
  };
  const skipValue = () => {
    ws();
    if (source[i] === '"') return skipString();
    if (source[i] === '{' || source[i] === '[') {
      let depth = 0;
      do {
        if (source[i] === '"') {
          skipString();
          continue;
        }
        if (source[i] === '{' || source[i] === '[') depth++;
        if (source[i] === '}' || source[i] === ']') depth--;
        i++;
      } while (depth > 0 && i < source.length);
      return;
    }
    while (i < source.length && !/[,}\]\s]/.test(source[i]!)) i++;
  };
  ws();
  if (source[i] !== '{') return undefined;
  i++;
  for (;;) {
    ws();
    if (source[i] !== '"') return undefined;
    const keyStart = i;
    skipString();
    const name = JSON.parse(source.slice(keyStart, i)) as string;
    ws();
    if (source[i] !== ':') return undefined;
    i++;
    ws();
    const start = i;
    skipValue();
    if (name === key) return source.slice(start, i).trim();
    ws();
    if (source[i] !== ',') return undefined;
    i++;
  }
}

/** The rules of a JSON-RPC response (JSON-RPC 2.0 §5, §5.1), each with the catalog row it is, and what a response breaking it lacks. */
export const RESPONSE_RULES: { row: string; problem(m: Record<string, any>): string | undefined }[] = [
  { row: 'jsonrpc-version-member', problem: (m) => (m.jsonrpc !== '2.0' ? `"jsonrpc" is ${JSON.stringify(m.jsonrpc)}, not "2.0"` : undefined) },
  { row: 'jsonrpc-result-xor-error', problem: (m) => (('result' in m) === ('error' in m) ? 'it has both or neither of result and error' : undefined) },
  {
    row: 'jsonrpc-error-object',
    problem: (m) => ('error' in m && !(isObject(m.error) && Number.isInteger(m.error.code) && typeof m.error.message === 'string') ? 'error is not {code: integer, message: string}' : undefined),
  },
];

/** What a well-formed JSON-RPC response lacks (JSON-RPC 2.0 §5, §5.1), or undefined. */
export function malformed(m: unknown): string | undefined {
  if (!isObject(m)) return 'the message is not a JSON object';
  for (const rule of RESPONSE_RULES) {
    const problem = rule.problem(m);
    if (problem) return problem;
  }
  return undefined;
}
