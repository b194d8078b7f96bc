import { getGlobalDispatcher, type Dispatcher } from 'undici';
import { poolRequest } from '../wire/connections.js';
import { TargetError } from './target.js';

/** What one POST before a run was answered: its status, media type and the start of its body. */
export interface PreflightReply { status: number; contentType: string; head: string }

/** One POST before a run (the body read up to 2 KB, the rest dropped), or a TargetError when nothing answers. */
export async function postOnce(url: string, headers: Record<string, string>, body: string, timeoutMs: number, pool: Dispatcher = getGlobalDispatcher()): Promise<PreflightReply> {
  try {
    const res = await poolRequest(pool, url, { method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    let head = '';
    for await (const chunk of res.body) {
      head += (chunk as Buffer).toString('utf8');
      if (head.length >= 2048) break;
    }
    if (head.length >= 2048) res.body.destroy();
    const type = res.headers['content-type'];
    return { status: res.statusCode, contentType: ((Array.isArray(type) ? type[0] : type) ?? '').toLowerCase(), head: head.slice(0, 2048) };
  } catch (err) {
    throw new TargetError(`cannot reach ${url}: ${(err as Error).message}`);
  }
}

/**
 * What the service answers a tools/list sent with `key` (a request it answers without a protocol session:
 * JSON in, JSON or a stream out): every command given a key tries it once, before it spends anything on the
 * deployment, and stops on a refusal. `headers` go with it (a run's `--header`s); the key is the one sent.
 */
export async function keyStatus(mcpUrl: string, key: string, timeoutMs: number, headers: Record<string, string> = {}, pool: Dispatcher = getGlobalDispatcher()): Promise<number> {
  return (await postOnce(mcpUrl, {
    'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18',
    ...headers, authorization: `Bearer ${key}`,
  }, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', timeoutMs, pool)).status;
}
