import { request } from 'undici';
import { REVISIONS, type Revision } from '../catalog/types.js';
import type { TargetInfo } from '../target-info.js';

const MODERN: Revision = '2026-07-28';

async function postJson(info: TargetInfo, body: unknown, headers: Record<string, string>): Promise<any> {
  try {
    const res = await request(info.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', ...info.headers,
        ...(info.apiKey && { authorization: `Bearer ${info.apiKey}` }), ...headers,
      },
      body: JSON.stringify(body),
      headersTimeout: info.timeoutMs, bodyTimeout: info.timeoutMs,
    });
    const text = await res.body.text();
    const data = text.startsWith('{') ? text : text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).pop() ?? '';
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/**
 * Which revisions the target speaks: each 2025-era revision it echoes from `initialize`, and 2026-07-28
 * when `server/discover` lists it. With `--protocol <rev>` only that one is tested.
 */
export async function detectRevisions(info: TargetInfo): Promise<Revision[]> {
  if (info.protocol !== 'auto') return [info.protocol];
  const spoken: Revision[] = [];
  await Promise.all(REVISIONS.filter((r) => r !== MODERN).map(async (rev) => {
    const reply = await postJson(info, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: rev, capabilities: {}, clientInfo: { name: 'mcp-conformance-harness', version: '1' } } }, {});
    if (reply?.result?.protocolVersion === rev) spoken.push(rev);
  }));
  const discover = await postJson(info, {
    jsonrpc: '2.0', id: 1, method: 'server/discover',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
  }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' });
  if (Array.isArray(discover?.result?.supportedVersions) && discover.result.supportedVersions.includes(MODERN)) spoken.push(MODERN);
  return REVISIONS.filter((r) => spoken.includes(r));
}
