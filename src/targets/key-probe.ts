import { poolRequest } from '../wire/connections.js';
import { TargetError } from './target.js';

/** One POST before a run: its status (the body is read and dropped), or a TargetError when nothing answers. */
export async function postStatus(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  try {
    const res = await poolRequest(url, { method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    await res.body.dump();
    return res.statusCode;
  } catch (err) {
    throw new TargetError(`cannot reach ${url}: ${(err as Error).message}`);
  }
}

/**
 * What the service answers a tools/list sent with `key` (a request it answers without a protocol session:
 * JSON in, JSON or a stream out): every command given a key tries it once, before it spends anything on the
 * deployment, and stops on a refusal. `headers` go with it (a run's `--header`s); the key is the one sent.
 */
export function keyStatus(mcpUrl: string, key: string, timeoutMs: number, headers: Record<string, string> = {}): Promise<number> {
  return postStatus(mcpUrl, {
    'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18',
    ...headers, authorization: `Bearer ${key}`,
  }, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', timeoutMs);
}
