import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestIdsIn } from '../../src/targets/own-sessions.js';
import { RequestIds } from '../../src/wire/request-ids.js';
import type { Results } from '../../src/engine/results.js';
import { startThirdParty, type RunningServer } from '../helpers/third-party.js';
import { runCli } from './run-cli.js';

// MCP basic/index, Requests: "The request ID MUST NOT have been previously used by the requestor within the same session."

describe('the run\'s id space (src/wire/request-ids.ts)', () => {
  it('never gives an id twice in a run, however the checks interleave; each run has its own', async () => {
    const run = new RequestIds();
    const drawn = (await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i % 7));
      return i % 2 === 0 ? run.next() : run.named('x');
    }))).map(String);
    expect(new Set(drawn).size).toBe(200);
    expect(new RequestIds().next()).toBe(1);
  });

  it('reads the request ids of a body, a batch or JSON text; responses, notifications and broken JSON have none', () => {
    expect(requestIdsIn({ jsonrpc: '2.0', id: 0, method: 'ping' })).toEqual(['0']);
    expect(requestIdsIn('[{"jsonrpc":"2.0","id":"0","method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":7,"result":{}}]')).toEqual(['"0"']);
    expect(requestIdsIn('{"jsonrpc": "2.0", "id": 1, "method": ')).toEqual([]);
  });
});

/** Every row's verdict, for comparing two runs. */
const verdicts = (r: Results | undefined) => Object.fromEntries((r?.requirements ?? []).map((x) => [x.id, x.status]));

describe('servers that hold the harness to the rule (fixtures/third-party/ts-v1/id-reuse.ts)', () => {
  const servers: Partial<Record<'plain' | 'refuse' | 'drop', RunningServer>> = {};
  beforeAll(async () => {
    [servers.plain, servers.refuse, servers.drop] = await Promise.all([
      startThirdParty('ts-v1', 'stateful'),
      startThirdParty('ts-v1', 'stateful', { ID_REUSE: 'refuse' }),
      startThirdParty('ts-v1', 'stateful', { ID_REUSE: 'drop' }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s?.stop()));
  });

  it('refuses a request id reused in a session (the guard works)', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(servers.refuse!.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const list = () => fetch(servers.refuse!.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }) });
    const first = await list();
    expect(first.status).toBe(200);
    await first.text();
    const again = await list();
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ id: 5, error: { code: -32600 } });
    expect(servers.refuse!.output()).toMatch(/reused request id 5 in session/);
  });

  it('the generic run reuses no id in its sessions: a server refusing or dropping reused ids gets the plain server\'s verdicts', async () => {
    const args = (s: RunningServer) => ['--target', 'url', '--mcp-url', s.url, '--profile', 'generic', '--seed', '1'];
    const before = { refuse: servers.refuse!.output().length, drop: servers.drop!.output().length };
    const [plain, refuse, drop] = await Promise.all([runCli(args(servers.plain!)), runCli(args(servers.refuse!)), runCli(args(servers.drop!))]);
    expect(plain.results, plain.stderr).toBeDefined();
    expect(servers.refuse!.output().slice(before.refuse)).not.toMatch(/reused request id/);
    expect(servers.drop!.output().slice(before.drop)).not.toMatch(/reused request id/);
    expect(verdicts(refuse.results)).toEqual(verdicts(plain.results));
    expect(verdicts(drop.results)).toEqual(verdicts(plain.results));
  }, 120_000);
});
