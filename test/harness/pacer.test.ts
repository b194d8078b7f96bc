import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RETRIES } from '../../src/budget/pacer.js';
import { RunState } from '../../src/engine/run-state.js';
import { Throttled } from '../../src/engine/verdict.js';
import { WireClient } from '../../src/wire/client.js';
import type { Exchange } from '../../src/wire/exchange.js';

/**
 * "A throttle is never a pass" (issue 24): a 429 is waited out within the run's wait budget and the check's
 * deadline; when it cannot be, the check fails as throttled, with the reason. Each case answers on a path of
 * its own: the reply's status and Retry-After come from the path, and each path is its own client's bucket.
 */
describe('the pacer: a throttle that cannot be waited out fails the check', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const [, status, retryAfter] = (req.url ?? '').split('/');
      res.writeHead(Number(status), { 'content-type': 'application/json', ...(retryAfter && { 'retry-after': retryAfter }) }).end('{"error":"slow down"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A check's client: its own bucket (a key of its own), a deadline `leftMs` from now. */
  const client = (log: Exchange[], key: string, leftMs = 20_000, run = new RunState()) =>
    ({ send: (path: string, extra = {}) => new WireClient(log, () => [], { timeoutMs: 5000, deadlineAt: performance.now() + leftMs, deadlineMs: leftMs, run }).request(`${base}${path}`, { headers: { authorization: `Bearer ${key}` }, ...extra }) });

  it('a Retry-After beyond what the check has left of its deadline fails at once, saying both numbers', async () => {
    const log: Exchange[] = [];
    const err = await client(log, 'deadline', 1000).send('/429/5').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Throttled);
    expect((err as Throttled).message).toMatch(/^throttled for 5 s \(429 from \/429\/5, Retry-After: 5\), beyond the [\d.]+ s this check has left of its 1 s deadline$/);
    expect(log).toHaveLength(1);
  });

  it('a Retry-After beyond the run\'s wait budget fails at once, naming the budget', async () => {
    const run = new RunState();
    run.openLedger({ waitMs: 1000 });
    const err = await client([], 'budget', 20_000, run).send('/429/2').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Throttled);
    expect((err as Throttled).message).toMatch(/throttled for 2 s .*beyond the wait budget of 1 s \(--wait-budget; 1 s of it left\)/);
    expect((err as Throttled).actual).toMatchObject({ status: 429, 'retry-after': '2' });
  });

  it('429 after 429 despite waiting as told fails, and the same bucket is not waited out again', async () => {
    const log: Exchange[] = [];
    const c = client(log, 'persistent');
    const first = await c.send('/429/0').catch((e: unknown) => e);
    expect((first as Throttled).message).toBe(`throttled: /429/0 answered 429 ${MAX_RETRIES + 1} times in a row despite waiting as told (Retry-After: 0)`);
    expect(log).toHaveLength(MAX_RETRIES + 1);
    const second = await c.send('/429/0').catch((e: unknown) => e);
    expect((second as Throttled).message).toMatch(/; this request on the same bucket got 429 again \(Retry-After: 0\) and was not waited out$/);
    expect(log).toHaveLength(MAX_RETRIES + 2);
  });

  it('a 429 where the description demands another answer is that answer, not waited out', async () => {
    const log: Exchange[] = [];
    const res = await client(log, 'answer').send('/429/300', { throttleIsAnswer: true });
    expect(res.status).toBe(429);
    expect(log).toHaveLength(1);
  });

  it('a bucket held longer than the check can wait is not slept on: the request goes, and its 429 is judged', async () => {
    const log: Exchange[] = [];
    const c = client(log, 'held', 60_000);
    // The first reply holds the bucket for 30 s; within a 60 s deadline the pacer waits, so answer it once only.
    await c.send('/429/30', { throttleIsAnswer: true });
    const short = client(log, 'held', 1000);
    // Were the 30 s hold slept on, this would outlast the test's own time box.
    const err = await short.send('/429/30').catch((e: unknown) => e);
    expect((err as Throttled).message).toMatch(/^throttled for 30 s .*this check has left of its 1 s deadline$/);
    expect(log).toHaveLength(2);
  });
});
