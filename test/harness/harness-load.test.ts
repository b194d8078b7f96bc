import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunState } from '../../src/engine/run-state.js';
import { measureHarnessLoad, stalledMs, STALL_MS } from '../../src/kit/harness-load.js';
import { WireClient } from '../../src/wire/client.js';
import { harnessCause, isVerdict } from '../../src/engine/verdict.js';

/** Holds this process's event loop, as a starved machine or a long synchronous step does. */
function hold(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* held */ }
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the harness\'s own machine', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Answers after 300 ms: in time for a deadline of 2 s, unless the harness cannot read the answer.
    server = createServer((req, res) => {
      if (req.url === '/silent') return; // never answers
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 300);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a held event loop is measured as a stall', async () => {
    const load = measureHarnessLoad();
    await tick(100);
    const from = performance.now();
    await tick(30); // the watch's timer is armed before the hold
    hold(3 * STALL_MS);
    await tick(50);
    expect(stalledMs(from)).toBeGreaterThanOrEqual(2 * STALL_MS);
    const said = load.stop();
    expect(said.stalls.count).toBeGreaterThanOrEqual(1);
    expect(said.stalls.longestMs).toBeGreaterThanOrEqual(2 * STALL_MS);
    expect(said.eventLoopDelayMs.max).toBeGreaterThanOrEqual(2 * STALL_MS);
    expect(said.cores).toBeGreaterThanOrEqual(1);
  });

  it('a deadline that passed while the harness was held is not the service\'s failure', async () => {
    const load = measureHarnessLoad();
    try {
      const client = new WireClient([], () => [], { timeoutMs: 1_000, run: new RunState() });
      const pending = client.request(url, { json: { jsonrpc: '2.0', id: 1, method: 'ping' } });
      await tick(30);
      hold(1_500); // the reply came after 300 ms, but nobody read it before the deadline of 1 s passed
      const err = await pending.then(() => undefined, (e: unknown) => e);
      expect(err, 'the request ended at its deadline').toBeDefined();
      expect(harnessCause(err)).toMatch(/^not judged: the request's deadline of 1000 ms passed while the harness's own event loop was held \d+ ms of it/);
    } finally {
      load.stop();
    }
  });

  it('a deadline that passed while the harness was free is the service\'s', async () => {
    const client = new WireClient([], () => [], { timeoutMs: 2_000, run: new RunState() });
    const err = await client.request(`${url}silent`, { json: { jsonrpc: '2.0', id: 1, method: 'ping' } }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeDefined();
    expect(harnessCause(err)).toBeUndefined();
    expect(isVerdict(err)).toBe(true);
  });
});
