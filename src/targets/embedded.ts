import type { TargetInfo } from './target-info.js';
import { bootstrapKey, keyPrefixOf } from './bootstrap-keys.js';
import type { RunState } from '../engine/run-state.js';
import { unusableKeyReason } from '../kit/key-form.js';
import { adminPost } from './admin-call.js';
import { startServerThread } from './embedded-thread.js';
import { TargetError, type PreparedTarget } from './target.js';

export type TargetBase = Omit<TargetInfo, 'kind' | 'baseUrl' | 'mcpUrl' | 'canBootstrap' | 'revisions' | 'admin'>;

/**
 * The reference server in a thread of its own (src/targets/embedded-thread.ts) on a free loopback
 * port with a fresh in-memory store, mailing to the harness's own SMTP sink (in the same thread). Limits are set so the checks'
 * own traffic never trips the rate limiter, while a bounded burst does. `mutant` starts a deliberately
 * broken variant instead.
 */
export async function prepareEmbedded(run: RunState, base: TargetBase, mutantName?: string): Promise<PreparedTarget> {
  const server = await startServerThread(mutantName).catch((err: unknown) => {
    throw new TargetError((err as Error).message);
  });
  try {
    const [a, b, revoked] = await Promise.all(['A', 'B', 'revoked'].map((label) => bootstrapKey(server.baseUrl, label, run)));
    // Revoked as an admin revokes it in the settings: through the service's own admin channel. A mutant that
    // hands out keys other than those it stores has none to revoke (404): that key then stays as it is.
    const { status } = await adminPost(run.pool, server.admin, '/keys/revoke', { key: revoked!.apiKey });
    if ((status < 200 || status > 299) && status !== 404) throw new TargetError(`the embedded reference server's admin channel answered /keys/revoke with ${status}`);
    // A key that cannot be a Bearer credential is judged once (bootstrap-key-b64token), never sent by the run.
    const unusable = (key: string) => unusableKeyReason(key);
    const info: TargetInfo = {
      ...base,
      kind: 'embedded',
      baseUrl: server.baseUrl,
      mcpUrl: server.mcpUrl,
      apiKey: base.apiKey ?? (unusable(a!.apiKey) ? undefined : a!.apiKey),
      otherKey: base.otherKey ?? (unusable(b!.apiKey) ? undefined : b!.apiKey),
      ...(!base.apiKey && unusable(a!.apiKey) && { noKeyReason: `no API key: ${unusable(a!.apiKey)}` }),
      ...(!base.otherKey && unusable(b!.apiKey) && { noOtherKeyReason: `no key of a second workspace: ${unusable(b!.apiKey)}` }),
      ...(!unusable(revoked!.apiKey) && { revokedKey: revoked!.apiKey }),
      bootstrapped: [a!, b!].map((r, i) => ({ label: i === 0 ? 'A' : 'B', apiKey: r.apiKey, ...(r.claimUrl && { claimUrl: r.claimUrl }) })),
      keyPrefix: keyPrefixOf(a!.apiKey),
      canBootstrap: true,
      mailboxUrl: server.mailboxUrl,
      admin: server.admin,
      revisions: [],
    };
    return {
      info,
      close: () => server.close(),
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}
