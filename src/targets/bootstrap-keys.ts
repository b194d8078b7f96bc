import { NotTestable, Throttled } from '../engine/verdict.js';
import { WireClient } from '../wire/client.js';
import { RunState } from '../engine/run-state.js';
import { DEFAULT_SETTINGS } from '../engine/run-settings.js';
import { DEFAULT_WAIT_BUDGET_MS } from '../engine/run-options.js';
import type { Exchange } from '../wire/exchange.js';
import { TargetError } from './target.js';

let counter = 0;

export type BootstrapOutcome = { apiKey: string; claimUrl?: string; humanEmail: string } | { refused: string; status?: number };

/**
 * Asks the bootstrap endpoint (no auth) for a fresh workspace key, with a bounded, unique test address.
 * Counted in the run's ledger and recorded into `log`; a 429 is waited out as the endpoint asks, for `waitMs`
 * at most (a throttle that outlasts it is a refusal). Never throws: a refusal says why.
 */
export async function tryBootstrapKey(run: RunState, baseUrl: string, label: string, log: Exchange[] = [], waitMs = DEFAULT_WAIT_BUDGET_MS): Promise<BootstrapOutcome> {
  counter += 1;
  const humanEmail = `conformance+${Date.now().toString(36)}${counter}@example.com`;
  const url = `${baseUrl}/api/agent/bootstrap`;
  let res;
  try {
    // Bounded like a check: a Retry-After beyond `waitMs` is a refusal now, not a wait of minutes.
    const client = new WireClient(log, () => [], { deadlineAt: performance.now() + waitMs, deadlineMs: waitMs, deadlineOwner: `bootstrap ${label}`, run });
    res = await client.request(url, {
      method: 'POST',
      json: { humanEmail, agentName: 'mcp-conformance-harness', workspaceName: `conformance ${label}`, canvasName: 'conformance canvas' },
    });
  } catch (err) {
    if (err instanceof Throttled) return { refused: `bootstrap at ${baseUrl} was ${err.message}`, status: 429 };
    return { refused: err instanceof NotTestable ? err.reason : `cannot reach ${url}: ${(err as Error).message}` };
  }
  if (res.status !== 201 && res.status !== 200) return { refused: `bootstrap at ${baseUrl} answered ${res.status}`, status: res.status };
  const body = res.json as { apiKey?: unknown; claimUrl?: unknown } | undefined;
  if (typeof body?.apiKey !== 'string') return { refused: `bootstrap at ${baseUrl} answered ${res.status} without an apiKey`, status: res.status };
  return { apiKey: body.apiKey, humanEmail, ...(typeof body.claimUrl === 'string' && { claimUrl: body.claimUrl }) };
}

/**
 * A fresh workspace key, or a TargetError (for callers that cannot go on without one: load runs, embedded). A
 * conformance run's preparation counts it in its `run` (and sends with its request deadline); a load command's
 * bootstrap, given the deadline in ms, is a run of its own.
 */
export async function bootstrapKey(baseUrl: string, label: string, via: RunState | number): Promise<{ apiKey: string; claimUrl?: string; humanEmail: string }> {
  // Outside a conformance run, a state of its own for this one request, its connection closed after it.
  const own = typeof via === 'number' ? new RunState({ ...DEFAULT_SETTINGS, timeoutMs: via }) : via;
  try {
    const outcome = await tryBootstrapKey(own, baseUrl, label);
    if ('refused' in outcome) throw new TargetError(`${outcome.refused}; give keys with --api-key instead`);
    return outcome;
  } finally {
    if (own !== via) await own.close();
  }
}

/** `<prefix>_live_<secret>` → `<prefix>`, whatever characters the prefix holds (src/kit/key-form.ts). */
export { keyPrefixOf } from '../kit/key-form.js';
