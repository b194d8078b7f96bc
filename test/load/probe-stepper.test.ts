import { describe, expect, it } from 'vitest';
import type { ProbeClient, ProbeReply } from '../../load/probe/client.js';
import { DISTURBED_LATE_MS, openStep } from '../../load/probe/stepper.js';

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
