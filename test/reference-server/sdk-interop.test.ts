import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';

let server: ReferenceServer;
let key: string;

beforeAll(async () => {
  server = await startReference({ bootstrapPlan: 'unlimited' });
  ({ apiKey: key } = await bootstrap(server));
});
afterAll(() => server.close());

/** The official SDK client, configured the way the description's `mcpServers` entry does: a URL and an Authorization header. */
async function connect(mode: 'legacy' | 'auto') {
  const client = new Client({ name: 'interop-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  return client;
}

describe.each(['legacy', 'auto'] as const)('official SDK client (%s negotiation)', (mode) => {
  it('connects, lists tools, and calls a streaming tool receiving progress then the result', async () => {
    const client = await connect(mode);
    try {
      // "auto" discovers the 2026-07-28 wire; "legacy" stays on the 2025 handshake.
      expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'auto' ? '2026-07-28' : '2025-11-25');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('schedule.preview');
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'schedule.preview', arguments: { expression: '0 12 * * *', count: 2, from: '2026-03-01T00:00:00Z' } },
        { onprogress: (p) => progress.push(p.progress) },
      );
      expect(progress.length).toBeGreaterThan(0);
      progress.forEach((v, i) => i > 0 && expect(v).toBeGreaterThan(progress[i - 1]!));
      expect(result.structuredContent).toMatchObject({ runs: ['2026-03-01T12:00:00.000Z', '2026-03-02T12:00:00.000Z'] });
      const created = await client.callTool({ name: 'blocks.create', arguments: { title: `via ${mode}`, kind: 'metric' } });
      expect(created.isError).toBeFalsy();
      const listed = await client.callTool({ name: 'blocks.list', arguments: { published: false } });
      expect((listed.structuredContent as { blocks: { title: string }[] }).blocks.map((b) => b.title)).toContain(`via ${mode}`);
    } finally {
      await client.close();
    }
  });
});

it('the SDK client with a wrong key fails to connect', async () => {
  const client = new Client({ name: 'interop-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: 'Bearer cnv_live_wrong' } } });
  await expect(client.connect(transport)).rejects.toThrow();
});
