import type { Dispatcher } from 'undici';
import { poolRequest } from '../wire/connections.js';
import type { TargetInfo } from './target-info.js';

/**
 * One call to the embedded target's admin channel (src/targets/admin-channel.ts serves it): a POST with its
 * token. The status and the reply as sent; each caller decides what an answer means.
 */
export async function adminPost(pool: Dispatcher, admin: NonNullable<TargetInfo['admin']>, path: string, body: unknown): Promise<{ status: number; json: () => unknown }> {
  const res = await poolRequest(pool, `${admin.url}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: () => JSON.parse(text) as unknown };
}
