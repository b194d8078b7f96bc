/**
 * One tools/list before the load: a target that cannot be reached, or that refuses the key, is a usage
 * problem (exit 2), not a run full of connection errors. Other statuses (a 5xx behind a balancer with a
 * replica down) are left for the load to measure.
 */
import { TargetError } from '../src/targets/target.js';
import { keyStatus } from '../src/targets/key-probe.js';

export async function preflight(target: { mcpUrl: string; apiKey: string }, timeoutMs = 10_000): Promise<void> {
  const status = await keyStatus(target.mcpUrl, target.apiKey, timeoutMs);
  if (status === 401 || status === 403) throw new TargetError(`${target.mcpUrl} refused the API key (HTTP ${status}); give a live key with --api-key or MCP_API_KEY`);
}
