import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { program } from '../../src/kit/package-root.js';

/** The processes whose parent is `pid` (pgrep exits 1 when there are none). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether `pid` still runs: a zombie (state Z, dead and waiting to be reaped by init) does not. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/**
 * A conformance run ended by a signal ends what it started: the interop matrix's SDK client programs are the
 * command's children, and a node process that dies of a signal takes none with it (src/kit/child-reaper.ts).
 */
describe('a signal to a running conformance command', () => {
  it.each([['SIGTERM', 143], ['SIGINT', 130]] as const)('%s while the SDK clients run: exit %i, no child left', async (signal, code) => {
    const child = spawn(process.execPath, [program('src/cli/conformance.ts'), '--only', 'interop-', '--seed', '1', '--report-dir', mkdtempSync(join(tmpdir(), 'signals-'))], { stdio: 'ignore' });
    let started: number[] = [];
    for (let i = 0; i < 100 && started.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      started = childrenOf(child.pid!);
    }
    expect(started.length, 'the clients started').toBeGreaterThanOrEqual(2);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    child.kill(signal);
    expect(await exited).toBe(code);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(started.filter(alive)).toEqual([]);
  }, 60_000);
});
