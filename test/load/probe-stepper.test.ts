import { describe, expect, it } from 'vitest';
import type { ProbeClient, ProbeReply } from '../../load/probe/client.js';
import { DISTURBED_LATE_MS, disturbance, openStep } from '../../load/probe/stepper.js';

/** A client that answers 200 at once; its `stallAt`-th request blocks the event loop for `stallMs` first. */
function fakeClient(stallAt: number, stallMs: number): ProbeClient {
  const origin = performance.now();
  let sent = 0;
  const now = () => performance.now() - origin;
  return {
    now,
    async trySend(): Promise<ProbeReply> {
      if (++sent === stallAt) {
        const until = performance.now() + stallMs;
        while (performance.now() < until); // the stall: nothing else runs, as under a starved CPU
      }
      return { status: 200, sentAt: now(), receivedAt: now(), headers: {} };
    },
  } as unknown as ProbeClient;
}

describe('openStep: how late its requests went out', () => {
  it('a stall of the event loop shows as lateness above the disturbance bound, and the overdue requests still go out', async () => {
    // 40 req/s for 1 s; the 10th request stalls the loop for 600 ms: the ~24 requests due meanwhile leave late, at once.
    const outcome = await openStep(fakeClient(10, 600), 'k', 40, 1, 100);
    expect(outcome.maxLateMs).toBeGreaterThan(DISTURBED_LATE_MS);
    expect(outcome.maxLateMs).toBeGreaterThanOrEqual(500);
    expect(outcome.sent).toBe(40);
  });
});

describe('disturbance: which steps say nothing sound about the limit', () => {
  /** Replies sent every 25 ms, each answered after `latency(i)` ms. */
  const replies = (n: number, latency: (i: number) => number): ProbeReply[] =>
    Array.from({ length: n }, (_, i) => ({ status: 200, sentAt: i * 25, receivedAt: i * 25 + latency(i), headers: {} }));

  it('a step whose requests went out late, whatever its class', () => {
    for (const cls of ['clean', 'throttled', 'saturated'] as const) {
      expect(disturbance({ maxLateMs: 400, replies: replies(40, () => 5), class: cls })).toMatch(/up to 400 ms late/);
    }
  });

  it('a throttled step with a reply far later than the median: the target stalled, its queue reached the limiter at once', () => {
    expect(disturbance({ maxLateMs: 10, replies: replies(40, (i) => (i === 20 ? 600 : 5)), class: 'throttled' })).toMatch(/595 ms later than the step's median/);
  });

  it('not a clean step with one slow reply (nothing was judged from it), nor a throttled one with steady replies', () => {
    expect(disturbance({ maxLateMs: 10, replies: replies(40, (i) => (i === 20 ? 600 : 5)), class: 'clean' })).toBeUndefined();
    expect(disturbance({ maxLateMs: DISTURBED_LATE_MS, replies: replies(40, (i) => 5 + (i % 3) * 50), class: 'throttled' })).toBeUndefined();
  });
});
