import { request } from 'undici';
import { TargetError } from './target.js';

let counter = 0;

/** Gets a fresh workspace key from the bootstrap endpoint (no auth); bounded, unique test addresses. */
export async function bootstrapKey(baseUrl: string, label: string, timeoutMs: number): Promise<{ apiKey: string; claimUrl?: string; humanEmail: string }> {
  counter += 1;
  const humanEmail = `conformance+${Date.now().toString(36)}${counter}@example.com`;
  let res;
  try {
    res = await request(`${baseUrl}/api/agent/bootstrap`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ humanEmail, agentName: 'mcp-conformance-harness', workspaceName: `conformance ${label}`, canvasName: 'conformance canvas' }),
      headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
    });
  } catch (err) {
    throw new TargetError(`cannot reach ${baseUrl}/api/agent/bootstrap: ${(err as Error).message}`);
  }
  const text = await res.body.text();
  if (res.statusCode !== 201 && res.statusCode !== 200) {
    throw new TargetError(`bootstrap at ${baseUrl} answered ${res.statusCode}; give keys with --api-key instead`);
  }
  let body: { apiKey?: unknown; claimUrl?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    throw new TargetError(`bootstrap at ${baseUrl} did not answer JSON`);
  }
  if (typeof body.apiKey !== 'string') throw new TargetError(`bootstrap at ${baseUrl} returned no apiKey; give keys with --api-key instead`);
  return { apiKey: body.apiKey, humanEmail, ...(typeof body.claimUrl === 'string' && { claimUrl: body.claimUrl }) };
}

/** `<prefix>_live_<secret>` → `<prefix>`. */
export function keyPrefixOf(key: string | undefined): string | undefined {
  return key ? /^([^_\s]+)_live_/.exec(key)?.[1] : undefined;
}
