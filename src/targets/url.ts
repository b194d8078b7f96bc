import { request } from 'undici';
import { addSpent } from '../budget/tally.js';
import type { TargetInfo } from '../target-info.js';
import { keyPrefixOf, tryBootstrapKey } from './bootstrap-keys.js';
import type { TargetBase } from './embedded.js';
import { TargetError, type PreparedTarget } from './target.js';

/**
 * Any deployment. Needs nothing but the base URL: the keys not given (`--api-key`, `--other-key`) come from
 * the bootstrap endpoint, within `bootstrapBudget` requests. A bootstrap that is refused (401 behind a
 * gate, 429, no key in the reply) is not the user's error: the run goes on with the keys it has, the
 * bootstrap rows judge the refusal, and rows that need a missing key are not testable with the reason.
 * With `mcpUrl` (the generic profile), the endpoint is used as is and bootstrap is not attempted.
 */
export async function prepareUrl(base: TargetBase, baseUrl: string, mcpUrl?: string, mailboxUrl?: string, bootstrapBudget = Infinity): Promise<PreparedTarget> {
  const endpoint = mcpUrl ?? `${baseUrl.replace(/\/$/, '')}/api/mcp/v1`;
  try {
    addSpent({ requests: 1 });
    const res = await request(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...base.headers }, body: '{"jsonrpc":"2.0","id":0,"method":"ping"}', headersTimeout: base.timeoutMs, bodyTimeout: base.timeoutMs });
    await res.body.dump();
  } catch (err) {
    throw new TargetError(`cannot reach ${endpoint}: ${(err as Error).message}`);
  }
  const service = base.profile.kind === 'service';
  const origin = baseUrl.replace(/\/$/, '');
  let { apiKey, otherKey } = base;
  let bootstrapsUsed = 0;
  const refusals: string[] = [];
  const bootstrap = async (label: string): Promise<string | undefined> => {
    if (bootstrapsUsed >= bootstrapBudget) {
      refusals.push(`the bootstrap budget (${bootstrapBudget}) allows no bootstrap for key ${label}`);
      return undefined;
    }
    bootstrapsUsed += 1;
    const outcome = await tryBootstrapKey(origin, label, base.timeoutMs);
    if ('refused' in outcome) {
      refusals.push(outcome.refused);
      return undefined;
    }
    return outcome.apiKey;
  };
  if (service && !mcpUrl) {
    apiKey ??= await bootstrap('A');
    // A gate that refused the first key refuses the second: do not knock twice.
    if (!otherKey && refusals.length === 0) otherKey = await bootstrap('B');
  }
  const given = 'give keys with --api-key and --other-key';
  const info: TargetInfo = {
    ...base,
    kind: 'url',
    baseUrl: origin,
    mcpUrl: endpoint,
    apiKey,
    otherKey,
    keyPrefix: keyPrefixOf(apiKey ?? otherKey ?? base.revokedKey),
    canBootstrap: service && !mcpUrl,
    ...(mailboxUrl && { mailboxUrl }),
    ...(service && !apiKey && { noKeyReason: `no API key: ${refusals.join('; ') || 'none given'}; ${given}` }),
    ...(service && !otherKey && { noOtherKeyReason: `no key of a second workspace: ${refusals.join('; ') || 'none given'}; ${given}` }),
    revisions: [],
  };
  return { info, bootstrapsUsed, close: async () => {} };
}
