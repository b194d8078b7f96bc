import { startReferenceServer } from '../../fixtures/reference-server/app.js';
import { hashKey } from '../../fixtures/reference-server/keys.js';
import { mutant as findMutant } from '../../fixtures/mutants/index.js';
import { startMailSink } from '../../fixtures/smtp-sink/mail-sink.js';
import { CONFORMANCE_CONFIG } from '../../fixtures/reference-server/conformance-config.js';
import { startAdminChannel } from './admin-channel.js';
import type { TargetInfo } from '../target-info.js';
import { bootstrapKey, keyPrefixOf } from './bootstrap-keys.js';
import type { PreparedTarget } from './target.js';

export type TargetBase = Omit<TargetInfo, 'kind' | 'baseUrl' | 'mcpUrl' | 'canBootstrap' | 'revisions' | 'admin'>;

/**
 * The reference server in-process on a free loopback port with a fresh in-memory store, mailing to the
 * harness's own SMTP sink. Limits are set so the suites' own traffic never trips the rate limiter,
 * while a bounded burst does. `mutant` starts a deliberately broken variant instead.
 */
export async function prepareEmbedded(base: TargetBase, mutantName?: string): Promise<PreparedTarget> {
  const sink = await startMailSink();
  const m = mutantName ? findMutant(mutantName) : undefined;
  const server = await startReferenceServer({
    ...CONFORMANCE_CONFIG,
    mail: { smtpUrl: `smtp://127.0.0.1:${sink.smtpPort}` },
    ...m?.config,
  }, { middleware: m?.middleware });
  const [a, b, revoked] = await Promise.all(['A', 'B', 'revoked'].map((label) => bootstrapKey(server.baseUrl, label, base.timeoutMs)));
  const record = server.store.keyByHash(hashKey(revoked!.apiKey));
  if (record) server.store.revokeKey(record.id);
  const admin = await startAdminChannel(server.store, server.config);
  const info: TargetInfo = {
    ...base,
    kind: 'embedded',
    baseUrl: server.baseUrl,
    mcpUrl: server.mcpUrl,
    apiKey: base.apiKey ?? a!.apiKey,
    otherKey: base.otherKey ?? b!.apiKey,
    revokedKey: revoked!.apiKey,
    keyPrefix: keyPrefixOf(a!.apiKey),
    canBootstrap: true,
    mailboxUrl: sink.messagesUrl,
    admin: { url: admin.url, token: admin.token },
    revisions: [],
  };
  return {
    info,
    async close() {
      await admin.close();
      await server.close();
      await sink.close();
    },
  };
}
