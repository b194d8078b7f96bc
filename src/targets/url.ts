import type { RunState } from '../engine/run-state.js';
import type { TargetInfo } from './target-info.js';
import { keyPrefixOf, tryBootstrapKey } from './bootstrap-keys.js';
import { unusableKeyReason } from '../kit/key-form.js';
import type { TargetBase } from './embedded.js';
import { TargetError, type PreparedTarget } from './target.js';
import { keyStatus, postOnce } from './key-probe.js';
import { notMcpReason } from './endpoint-preflight.js';

/**
 * Any deployment. Needs nothing but the base URL: the keys not given (`--api-key`, `--other-key`) come from
 * the bootstrap endpoint, within `bootstrapBudget` requests. A bootstrap that is refused (401 behind a
 * gate, 429, no key in the reply) is not the user's error: the run goes on with the keys it has, the
 * bootstrap rows judge the refusal, and rows that need a missing key are not testable with the reason.
 * With `mcpUrl` (the generic profile), the endpoint is used as is and bootstrap is not attempted.
 */
export async function prepareUrl(run: RunState, base: TargetBase, baseUrl: string, mcpUrl?: string, mailboxUrl?: string, bootstrapBudget = Infinity): Promise<PreparedTarget> {
  const endpoint = mcpUrl ?? `${baseUrl.replace(/\/$/, '')}/api/mcp/v1`;
  run.tally.add({ requests: 1 });
  const reply = await postOnce(endpoint, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...base.headers }, '{"jsonrpc":"2.0","id":0,"method":"ping"}', run.settings.timeoutMs, run.pool);
  // No MCP endpoint where the service keeps one: a wrong URL, not a service to judge (its requests would all be 404s).
  if (reply.status === 404) {
    const path = new URL(baseUrl).pathname.replace(/\/$/, '');
    if (mcpUrl) throw new TargetError(`${endpoint} answered 404 to a POST: is it an MCP endpoint? Nothing was judged and nothing more was sent`);
    throw new TargetError(path
      ? `${endpoint} answered 404: --base-url is the service's root, and ${baseUrl} has a path (${path}); give its origin, --base-url ${new URL(baseUrl).origin} (or --mcp-url ${baseUrl} to judge any MCP server at that endpoint)`
      : `${endpoint} answered 404: is ${baseUrl} the service? Its MCP endpoint is <base URL>/api/mcp/v1 (give --mcp-url to judge any MCP server at another path)`);
  }
  // Not an MCP server at all (a static file server, a web app): no verdict, before a bootstrap is spent on it.
  const notMcp = notMcpReason(reply);
  if (notMcp) throw new TargetError(`${endpoint} ${notMcp}: is ${mcpUrl ? 'it an MCP endpoint' : `${baseUrl} the service`}? Nothing was judged and nothing more was sent`);
  // Before the first bootstrap or write: a key the service refuses is the user's mistake, not 40 failing rows.
  for (const [option, env, key, source] of [['--api-key', 'MCP_API_KEY', base.apiKey, base.keySources?.apiKey], ['--other-key', 'MCP_OTHER_KEY', base.otherKey, base.keySources?.otherKey]] as const) {
    if (!key) continue;
    run.tally.add({ requests: 1 });
    // Name where the key came from: a key from the environment is not "the key given with --api-key".
    const from = source === env ? `the key from the environment variable ${env}` : `the key given with ${option}`;
    if (await keyStatus(endpoint, key, run.settings.timeoutMs, base.headers, run.pool) === 401) throw new TargetError(`the service refused ${from} (401 to tools/list at ${endpoint}); give a live key (${option} or ${env})`);
  }
  const service = base.profile.kind === 'service';
  const origin = baseUrl.replace(/\/$/, '');
  let { apiKey, otherKey } = base;
  let bootstrapsUsed = 0;
  const refusals: string[] = [];
  const bootstrapped: NonNullable<TargetInfo['bootstrapped']> = [];
  const bootstrap = async (label: string): Promise<string | undefined> => {
    if (bootstrapsUsed >= bootstrapBudget) {
      refusals.push(`the bootstrap budget (${bootstrapBudget}) allows no bootstrap for key ${label}`);
      return undefined;
    }
    bootstrapsUsed += 1;
    const outcome = await tryBootstrapKey(run, origin, label);
    if ('refused' in outcome) {
      refusals.push(outcome.refused);
      return undefined;
    }
    bootstrapped.push({ label, apiKey: outcome.apiKey, ...(outcome.claimUrl && { claimUrl: outcome.claimUrl }) });
    // A key that cannot be a Bearer credential is judged once (bootstrap-key-b64token), never sent by the run.
    const unusable = unusableKeyReason(outcome.apiKey);
    if (unusable) {
      refusals.push(unusable);
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
    ...(bootstrapped.length > 0 && { bootstrapped }),
    ...(mailboxUrl && { mailboxUrl }),
    ...(service && !apiKey && { noKeyReason: `no API key: ${refusals.join('; ') || 'none given'}; ${given}` }),
    ...(service && !otherKey && { noOtherKeyReason: `no key of a second workspace: ${refusals.join('; ') || 'none given'}; ${given}` }),
    revisions: [],
  };
  return { info, bootstrapsUsed, close: async () => {} };
}
