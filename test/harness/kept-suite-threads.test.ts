import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

interface Recorded { file: string; state: string; id: number; evaluations: number }

/** Runs test/harness/kept-threads/runs.ts: the fixture files one vitest run after another in one process. */
async function runs(...args: string[]): Promise<Recorded[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/harness/kept-threads/runs.ts', ...args], { timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Recorded[];
}

/**
 * The conformance pool's processes keep vitest's worker threads from one run to the next
 * (src/suite-threads/pool.ts): the next run finds the harness's modules loaded, and still runs its suite
 * files afresh. A run that leaves something running in its thread gives up the thread.
 */
describe('kept suite threads', { timeout: 90_000 }, () => {
  it('a run that leaves nothing behind hands its thread, modules loaded, to the next run; one that leaves a timer does not', async () => {
    const [first, second, timer, after] = await runs('quiet', 'quiet', 'leaves-timer', 'quiet');
    expect([first, second, timer, after].map((r) => r?.state)).toEqual(['passed', 'passed', 'passed', 'passed']);
    // The same thread, the imported module evaluated once, the test itself run in both runs.
    expect(second!.id).toBe(first!.id);
    expect([first!.evaluations, second!.evaluations]).toEqual([1, 1]);
    expect(timer!.id).toBe(first!.id);
    // The timer's thread was terminated: the next run started a new one.
    expect(after!.id).not.toBe(timer!.id);
    expect(after!.evaluations).toBe(1);
  });

  it("vitest's own threads (the control): every run in a new thread", async () => {
    const [first, second] = await runs('--pool', 'threads', 'quiet', 'quiet');
    expect([first?.state, second?.state]).toEqual(['passed', 'passed']);
    expect(second!.id).not.toBe(first!.id);
  });
});
