import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withMachineLock } from '../../src/targets/build-lock.js';

const name = (what: string) => `canvas-harness-test-${what}-${process.pid}-${Date.now()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One image build at a time on a machine (src/targets/build-lock.ts): a second build waits for the first. */
describe('the machine-wide build lock', () => {
  it('serializes two holders: the second waits, told who holds the lock, and runs after the first released it', async () => {
    const lock = name('serial');
    const spans: [string, number, number][] = [];
    const waits: string[] = [];
    const hold = (who: string) => withMachineLock(lock, (holder) => waits.push(`${who} waits for ${holder}`), async () => {
      const from = Date.now();
      await sleep(300);
      spans.push([who, from, Date.now()]);
    });
    await Promise.all([hold('first'), sleep(20).then(() => hold('second'))]);
    expect(spans.map(([who]) => who)).toEqual(['first', 'second']);
    expect(spans[1]![1]).toBeGreaterThanOrEqual(spans[0]![2]);
    expect(waits).toEqual([`second waits for pid ${process.pid}`]);
    expect(existsSync(join(tmpdir(), `${lock}.lock`))).toBe(false);
  });

  it('takes over a lock whose holder no longer runs, without waiting', async () => {
    const lock = name('stale');
    const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid!;
    mkdirSync(join(tmpdir(), `${lock}.lock`));
    writeFileSync(join(tmpdir(), `${lock}.lock`, 'pid'), String(dead));
    const waits: string[] = [];
    const from = Date.now();
    expect(await withMachineLock(lock, (holder) => waits.push(holder), async () => 'ran')).toBe('ran');
    expect(waits).toEqual([]);
    expect(Date.now() - from).toBeLessThan(2_000);
  });

  it('releases the lock when the build fails', async () => {
    const lock = name('failing');
    await expect(withMachineLock(lock, () => undefined, async () => { throw new Error('build failed'); })).rejects.toThrow('build failed');
    expect(await withMachineLock(lock, () => { throw new Error('should not wait'); }, async () => 'next')).toBe('next');
  });
});
