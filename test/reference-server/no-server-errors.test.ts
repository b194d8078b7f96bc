import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { post } from '../helpers/mcp-http.js';

let server: ReferenceServer;
let key: string;

beforeAll(async () => {
  server = await startReference({ bootstrapPlan: 'unlimited', streaming: { steps: 1, stepDelayMs: 0 } });
  ({ apiKey: key } = await bootstrap(server));
});
afterAll(() => server.close());

const toolNames = ['blocks.create', 'blocks.build', 'blocks.list', 'blocks.publish', 'dataSources.create', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview', 'workspace.get', 'nope'];
const id = fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.double(), fc.boolean());
const envelope = fc.record({
  jsonrpc: fc.oneof(fc.constant('2.0'), fc.string()),
  id,
  method: fc.oneof(fc.constantFrom('tools/list', 'tools/call', 'initialize', 'ping', 'notifications/initialized'), fc.string()),
  params: fc.oneof(
    fc.record({ name: fc.oneof(fc.constantFrom(...toolNames), fc.string()), arguments: fc.oneof(fc.object(), fc.jsonValue()) }, { requiredKeys: [] }),
    fc.jsonValue(),
  ),
}, { requiredKeys: [] });

it('no JSON body, well formed or not, gets a 5xx from the MCP endpoint', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(envelope, fc.jsonValue(), fc.array(envelope, { maxLength: 3 })), async (body) => {
      const reply = await post(server.mcpUrl, body, { key });
      expect(reply.status).toBeLessThan(500);
      if (reply.json && !Array.isArray(reply.json) && reply.json.jsonrpc) expect('result' in reply.json !== 'error' in reply.json).toBe(true);
    }),
    { numRuns: 300 },
  );
}, 60_000);

it('no byte string gets a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => {
      const res = await fetch(server.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: bytes });
      await res.arrayBuffer();
      expect(res.status).toBeLessThan(500);
    }),
    { numRuns: 200 },
  );
}, 60_000);
