/**
 * One tools/list before the load: a target that cannot be reached, or that refuses the key, is a usage
 * problem (exit 2), not a run full of connection errors. Other statuses (a 5xx behind a balancer with a
 * replica down) are left for the load to measure.
 */
import { request } from 'undici';
import { TargetError } from '../../src/targets/target.js';
import { requestHeaders, SCENARIOS } from '../scenarios.js';

export async function preflight(target: { mcpUrl: string; apiKey: string }, timeoutMs = 10_000): Promise<void> {
  const toolsList = SCENARIOS.find((s) => s.name === 'tools-list')!.requests[0]!.body;
  let status: number;
  try {
    const res = await request(target.mcpUrl, {
      method: 'POST',
      headers: requestHeaders(target.apiKey),
      body: JSON.stringify(toolsList),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    status = res.statusCode;
    await res.body.dump();
  } catch (err) {
    throw new TargetError(`cannot reach ${target.mcpUrl}: ${(err as Error).message}`);
  }
  if (status === 401 || status === 403) throw new TargetError(`${target.mcpUrl} refused the API key (HTTP ${status}); give a live key with --api-key or MCP_API_KEY`);
}
