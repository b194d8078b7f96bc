import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../service/reference-server/app.js';
import { LEGACY_PROTOCOL_VERSIONS } from '../../service/reference-server/server-info.js';
import { bootstrap } from '../helpers/reference.js';

/**
 * The reference server answers a plain 2025-era tools/list without a per-POST SDK server. That fast path
 * must be invisible: the same status, the same headers in the same order, the same body bytes as the SDK
 * path, which a second server with fastPaths off takes for every request.
 */
let fast: ReferenceServer;
let sdk: ReferenceServer;
let fastKey: string;
let sdkKey: string;

beforeAll(async () => {
  const overrides = { bootstrapPlan: 'unlimited', bootstrapRateLimit: { ratePerSecond: 1000, burst: 1000 } };
  [fast, sdk] = await Promise.all([startReferenceServer(overrides), startReferenceServer(overrides, { fastPaths: false })]);
  [{ apiKey: fastKey }, { apiKey: sdkKey }] = await Promise.all([bootstrap(fast), bootstrap(sdk)]);
});
afterAll(async () => {
  await Promise.all([fast?.close(), sdk?.close()]);
});

interface Raw { status: number; headers: [string, string][]; body: Buffer }

function send(server: ReferenceServer, key: string, headers: Record<string, string>, body: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(server.mcpUrl, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          // The date is the only header that may differ between two servers.
          if (res.rawHeaders[i]!.toLowerCase() !== 'date') pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        }
        resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function both(headers: Record<string, string>, body: string): Promise<[Raw, Raw]> {
  return [await send(fast, fastKey, headers, body), await send(sdk, sdkKey, headers, body)];
}

const ids: unknown[] = [1, 0, -7, 42, 2 ** 53 - 1, 'a', '', 'é\u2028"\\/\u0000 ✓', 'x'.repeat(300)];
const versions: (string | undefined)[] = [undefined, ...LEGACY_PROTOCOL_VERSIONS];
const accepts: (string | undefined)[] = ['application/json, text/event-stream', 'application/json', undefined];

describe('the tools/list fast path', () => {
  it.each(versions.map((v) => [v ?? '(no MCP-Protocol-Version)', v] as const))('answers byte for byte as the SDK path: %s', async (_name, version) => {
    for (const id of ids) {
      for (const params of [undefined, {}]) {
        for (const accept of accepts) {
          const headers: Record<string, string> = {};
          if (version !== undefined) headers['mcp-protocol-version'] = version;
          if (accept !== undefined) headers.accept = accept;
          const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', ...(params && { params }) });
          const [a, b] = await both(headers, body);
          expect({ status: a.status, headers: a.headers }, body).toEqual({ status: b.status, headers: b.headers });
          expect(a.body.equals(b.body), `${body}: ${a.body.toString('utf8').slice(0, 200)} vs ${b.body.toString('utf8').slice(0, 200)}`).toBe(true);
          expect(a.status).toBe(200);
        }
      }
    }
  });

  it.each([
    ['a cursor', '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"abc"}}'],
    ['a progress token', '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"progressToken":1}}}'],
    ['a batch', '[{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"jsonrpc":"2.0","id":4,"method":"tools/list"}]'],
    ['a notification', '{"jsonrpc":"2.0","method":"tools/list"}'],
    ['by-position params', '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[]}'],
    ['an extra member', '{"jsonrpc":"2.0","id":3,"method":"tools/list","extra":1}'],
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}'],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"tools/list"}'],
  ])('leaves other shapes to the SDK path, with the same answer: %s', async (_name, body) => {
    for (const version of [undefined, '2025-03-26', '2025-11-25']) {
      const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
      if (version !== undefined) headers['mcp-protocol-version'] = version;
      const [a, b] = await both(headers, body);
      expect({ status: a.status, headers: a.headers, body: a.body.toString('utf8') }).toEqual({ status: b.status, headers: b.headers, body: b.body.toString('utf8') });
    }
  });
});
