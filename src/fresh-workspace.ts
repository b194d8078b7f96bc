import { bootstrapPermit, budgetSpentReason } from './budget/broker-client.js';
import type { TargetInfo } from './target-info.js';
import { WireClient } from './wire/client.js';
import type { Exchange } from './wire/exchange.js';
import { redact } from './wire/redact.js';

/**
 * A workspace of a check's (or a group's) own, from the bootstrap endpoint: its blocks and its rate bucket
 * are nobody else's. `purpose` names its share of the run's bootstrap budget (src/budget/bootstrap-plan.ts);
 * when the share is spent no request is sent and the note says so. The new key joins `secrets`, and the
 * recorded exchange is redacted after the fact (the key only became known in its response).
 */
export async function bootstrapWorkspace(target: TargetInfo, secrets: string[], purpose: string): Promise<{ key?: string; exchanges: Exchange[]; note: string }> {
  if (!target.canBootstrap) return { exchanges: [], note: 'bootstrap is not allowed on this target' };
  const permit = await bootstrapPermit(target, purpose, 1);
  if (permit.granted < 1) return { exchanges: [], note: budgetSpentReason(purpose, permit.budget) };
  const log: Exchange[] = [];
  const wire = new WireClient(log, () => secrets, target.timeoutMs);
  try {
    const res = await wire.request(`${target.baseUrl}/api/agent/bootstrap`, {
      method: 'POST',
      json: { humanEmail: `conformance+${purpose.replace(/[^a-z0-9-]/gi, '')}${target.seed}x${Date.now().toString(36)}@example.com`, agentName: 'mcp-conformance-harness', workspaceName: `conformance ${purpose}`, canvasName: 'conformance canvas' },
    });
    const key = res.json?.apiKey;
    if (typeof key !== 'string' || key.length < 8) return { exchanges: log, note: `bootstrap answered ${res.status} without an apiKey` };
    secrets.push(key);
    return { key, exchanges: log.map((x) => JSON.parse(redact(JSON.stringify(x), secrets)) as Exchange), note: `a workspace bootstrapped for ${purpose}` };
  } catch (err) {
    return { exchanges: log, note: `bootstrap failed: ${(err as Error).message}` };
  }
}
