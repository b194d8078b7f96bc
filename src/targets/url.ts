import { request } from 'undici';
import type { TargetInfo } from '../target-info.js';
import { bootstrapKey, keyPrefixOf } from './bootstrap-keys.js';
import type { TargetBase } from './embedded.js';
import { TargetError, type PreparedTarget } from './target.js';

/**
 * Any deployment. Needs nothing but the base URL: keys come from the bootstrap endpoint unless given.
 * With `mcpUrl` (the generic profile), the endpoint is used as is and bootstrap is not attempted.
 */
export async function prepareUrl(base: TargetBase, baseUrl: string, mcpUrl?: string, mailboxUrl?: string): Promise<PreparedTarget> {
  const endpoint = mcpUrl ?? `${baseUrl.replace(/\/$/, '')}/api/mcp/v1`;
  try {
    const res = await request(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...base.headers }, body: '{"jsonrpc":"2.0","id":0,"method":"ping"}', headersTimeout: base.timeoutMs, bodyTimeout: base.timeoutMs });
    await res.body.dump();
  } catch (err) {
    throw new TargetError(`cannot reach ${endpoint}: ${(err as Error).message}`);
  }
  const service = base.profile.kind === 'service';
  let apiKey = base.apiKey;
  let otherKey: string | undefined;
  if (service && !mcpUrl) {
    const origin = baseUrl.replace(/\/$/, '');
    if (!apiKey) apiKey = (await bootstrapKey(origin, 'A', base.timeoutMs)).apiKey;
    otherKey = (await bootstrapKey(origin, 'B', base.timeoutMs).catch(() => undefined))?.apiKey;
  }
  const info: TargetInfo = {
    ...base,
    kind: 'url',
    baseUrl: baseUrl.replace(/\/$/, ''),
    mcpUrl: endpoint,
    apiKey,
    otherKey,
    keyPrefix: keyPrefixOf(apiKey),
    canBootstrap: service && !mcpUrl,
    ...(mailboxUrl && { mailboxUrl }),
    revisions: [],
  };
  return { info, close: async () => {} };
}
