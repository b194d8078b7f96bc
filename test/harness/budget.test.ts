import { describe, expect, it } from 'vitest';
import { allocate, FULL_PLAN, SHARES } from '../../src/budget/bootstrap-plan.js';
import { RunLedger } from '../../src/budget/run-ledger.js';
import { bucketOf, holdBackMs } from '../../src/budget/pacer.js';
import { Tally } from '../../src/budget/tally.js';
import { RunState } from '../../src/engine/run-state.js';

describe('bootstrap plan', () => {
  it('shares never exceed the budget, and the same budget always buys the same shares', () => {
    for (const budget of [0, 1, 5, 8, 14, 16, 40, FULL_PLAN, FULL_PLAN + 10]) {
      const shares = allocate(budget);
      const total = [...shares.values()].reduce((a, b) => a + b, 0);
      expect(total).toBe(Math.min(budget, FULL_PLAN));
      expect(allocate(budget)).toEqual(shares);
    }
  });

  it('the checks that judge nothing without a bootstrap are served first', () => {
    const tier1 = SHARES.filter((s) => s.tier === 1).reduce((n, s) => n + s.wants, 0);
    const shares = allocate(tier1);
    for (const s of SHARES) expect(shares.get(s.purpose), s.purpose).toBe(s.tier === 1 ? s.wants : 0);
  });
});

describe('the run ledger', () => {
  it('grants each purpose its share and no more, records what was refused, and keeps the wait budget', () => {
    const ledger = new RunLedger({ bootstraps: 4, waitMs: 1000 });
    expect(ledger.permit('bootstrap-reply', 1).granted).toBe(1);
    expect(ledger.permit('bootstrap-reply', 1).granted).toBe(0);
    // A purpose the plan lacks is a type error (Purpose); from untyped code it would get nothing.
    // @ts-expect-error not a purpose of the plan
    expect(ledger.permit('no-such-purpose', 3).granted).toBe(0);
    expect(ledger.reserveWait(600)).toMatchObject({ granted: true, leftMs: 400 });
    expect(ledger.reserveWait(600)).toMatchObject({ granted: false, budgetMs: 1000, leftMs: 400 });
    expect(ledger.granted['bootstrap-reply']).toBe(1);
    expect(ledger.refused).toEqual({ 'bootstrap-reply': 1, 'no-such-purpose': 3 });
  });

  it('without a bound every purpose gets all it asks for', () => {
    expect(new RunLedger({ waitMs: 0 }).permit('property:bootstrap-valid-bodies', 60).granted).toBe(60);
  });

  it('each run keeps its own ledger and counts; until the run opens its ledger nothing is bounded', async () => {
    const spentIn = async (requests: number) => {
      const run = new RunState();
      expect(run.ledger.permit('bootstrap-reply', 60).granted).toBe(60);
      run.openLedger({ bootstraps: 1, waitMs: 0 });
      run.tally.add({ requests });
      await new Promise((resolve) => setTimeout(resolve, 5)); // the other run counts meanwhile
      const out = { spent: run.tally.take().requests, permit: run.ledger.permit('bootstrap-reply', 2).granted };
      await run.close();
      return out;
    };
    expect(await Promise.all([spentIn(3), spentIn(5)])).toEqual([{ spent: 3, permit: 1 }, { spent: 5, permit: 1 }]);
  });
});

describe('pacing', () => {
  it('a 429 waits as Retry-After says (delay-seconds or an HTTP-date), else a second', () => {
    expect(holdBackMs(429, { 'retry-after': '3' })).toBe(3000);
    const date = 'Wed, 25 Nov 2026 08:00:00 GMT';
    expect(holdBackMs(429, { 'retry-after': 'Wed, 25 Nov 2026 08:00:02 GMT', date })).toBe(2000);
    expect(holdBackMs(429, {})).toBe(1000);
  });

  it('an emptied bucket holds back the next request until its reset; a bucket with quota left does not', () => {
    expect(holdBackMs(200, { ratelimit: '"default";r=0;t=2' })).toBe(2000);
    expect(holdBackMs(200, { ratelimit: '"default";r=5;t=2' })).toBeUndefined();
    expect(holdBackMs(200, { 'ratelimit-remaining': '0', 'ratelimit-reset': '4' })).toBe(4000);
    // An epoch reset (X- fields, commonly) is not a wait.
    expect(holdBackMs(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1790000000' })).toBeUndefined();
    expect(holdBackMs(200, {})).toBeUndefined();
  });

  it('buckets follow the credentials, and the bootstrap endpoint has its own', () => {
    expect(bucketOf('http://h/api/mcp/v1', { Authorization: 'Bearer a' })).not.toBe(bucketOf('http://h/api/mcp/v1', { authorization: 'Bearer b' }));
    expect(bucketOf('http://h/api/agent/bootstrap', {})).toBe('bootstrap');
  });
});

describe('tally', () => {
  it('counts requests, bootstraps, the workspaces they created and blocks created', () => {
    const tally = new Tally();
    tally.countExchange('http://h/api/agent/bootstrap', 'POST', '{}', 201, { json: { apiKey: 'cnv_live_x' } });
    tally.countExchange('http://h/api/agent/bootstrap', 'POST', '{}', 400, { json: { error: 'no' } });
    const create = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'blocks.create', arguments: {} } });
    tally.countExchange('http://h/api/mcp/v1', 'POST', create, 200, { messages: [{ method: 'notifications/progress' }, { id: 1, result: { content: [] } }] });
    tally.countExchange('http://h/api/mcp/v1', 'POST', create, 200, { messages: [{ id: 1, result: { isError: true, content: [] } }] });
    expect(tally.take()).toMatchObject({ requests: 4, bootstraps: 2, workspaces: 1, blocksCreated: 1 });
  });
});
