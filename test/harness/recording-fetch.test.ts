import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunState } from '../../src/engine/run-state.js';
import { MAX_RETRIES } from '../../src/budget/pacer.js';
import { recordingFetch } from '../../src/interop/recording-fetch.js';
import type { Exchange } from '../../src/wire/exchange.js';

/**
 * The SDK clients' fetch waits out 429s like every other request of a check: against a deployment's
 * production limits the harness's own traffic must not fail an SDK check.
 */
describe('the recording fetch of the SDK checks', () => {
  let server: Server;
  let base: string;
  const refusals = new Map<string, number>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      const left = refusals.get(path) ?? 0;
      if (left > 0) {
        refusals.set(path, left - 1);
        res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"error":"slow down"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('waits out a 429 and sends again: the SDK gets the answer, the wire log both exchanges', async () => {
    refusals.set('/twice', 2);
    const log: Exchange[] = [];
    const recorder = recordingFetch(new RunState(), log, []);
    const res = await recorder.fetch(`${base}/twice`, { method: 'POST', body: '{"jsonrpc":"2.0"}', headers: { authorization: 'Bearer k1' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    await recorder.settle();
    expect(log.map((e) => e.response?.status)).toEqual([429, 429, 200]);
    expect(recorder.throttled()).toBeUndefined();
  });

  it('stops after as many 429s in a row as any request, and says why: the throttle the check fails with', async () => {
    refusals.set('/always', 100);
    const log: Exchange[] = [];
    const recorder = recordingFetch(new RunState(), log, []);
    const res = await recorder.fetch(`${base}/always`, { method: 'POST', body: '{}', headers: { authorization: 'Bearer k2' } });
    expect(res.status).toBe(429);
    expect(log).toHaveLength(MAX_RETRIES + 1);
    expect(recorder.throttled()?.message).toBe(`throttled: /always answered 429 ${MAX_RETRIES + 1} times in a row despite waiting as told (Retry-After: 0)`);
  });
});
