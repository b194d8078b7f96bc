import { describe, expect, it } from 'vitest';
import { runConformanceChild } from '../../scripts/conformance-runs.js';
import type { CheckRecord } from '../../src/engine/verdict.js';
import type { Exchange } from '../../src/wire/exchange.js';
import { KEPT_EXCHANGES, sampleWire } from '../../src/wire/wire-sample.js';

const exchanges = (n: number) => Array.from({ length: n }, (_, i) => ({ request: { method: 'POST', url: `http://127.0.0.1:1/${i}`, headers: {} }, startedAt: '2026-01-01T00:00:00.000Z' }) as unknown as Exchange);
const record = (status: CheckRecord['status'], n: number): CheckRecord => ({ name: status, suite: 's', requirementIds: ['x'], status, observations: [], wire: exchanges(n), durationMs: 1 });

describe('the wire logs results.json keeps', () => {
  it('all of a failing or broken check\'s; two of any other, counting the rest', () => {
    const records = [record('fail', 9), record('error', 5), record('pass', 9), record('not-testable', 3), record('pass', 2)];
    sampleWire(records);
    expect(records.map((r) => [r.wire.length, r.wireLeftOut])).toEqual([[9, undefined], [5, undefined], [KEPT_EXCHANGES, 7], [KEPT_EXCHANGES, 1], [2, undefined]]);
    expect(records[2]!.wire.map((x) => x.request.url)).toEqual(['http://127.0.0.1:1/0', 'http://127.0.0.1:1/1']);
  });

  it('of a passing streaming check, its first exchange and its fullest stream (the handshake and setup come first)', () => {
    const r = record('pass', 8);
    const stream = (n: number) => ({ status: 200, headers: {}, headersAt: 1, endAt: 9, closed: true, events: Array.from({ length: n }, (_, i) => ({ at: i + 2, data: '{}' })) });
    r.wire[2] = { ...r.wire[2]!, response: stream(1) } as Exchange; // a setup call's stream: its result alone
    r.wire[5] = { ...r.wire[5]!, response: stream(4) } as Exchange; // the stream under test: progress, then the result
    r.wire[6] = { ...r.wire[6]!, response: stream(4) } as Exchange;
    sampleWire([r]);
    expect(r.wire.map((x) => x.request.url)).toEqual(['http://127.0.0.1:1/0', 'http://127.0.0.1:1/5']);
    expect(r.wireLeftOut).toBe(6);
  });

  it('in a real run: the failing check\'s whole log, the passing checks\' first two', async () => {
    const run = await runConformanceChild(['--mutant', 'auth-missing-key-accepted', '--only', 'auth-', '--seed', '1', '--budget', '2']);
    expect(run.code, run.stderr).toBe(1);
    const checks = run.results!.requirements.flatMap((r) => r.checks);
    const failing = checks.find((c) => c.status === 'fail')!;
    expect(failing.wireLeftOut).toBeUndefined();
    expect(failing.wire.length).toBeGreaterThan(KEPT_EXCHANGES);
    const passing = checks.filter((c) => c.status === 'pass');
    expect(passing.every((c) => c.wire.length <= KEPT_EXCHANGES)).toBe(true);
    expect(passing.some((c) => (c.wireLeftOut ?? 0) > 0)).toBe(true);
  }, 120_000);
});
