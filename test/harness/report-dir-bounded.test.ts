import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformanceChild } from '../../scripts/conformance-runs.js';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';

// Issue 36: node's mkdirSync(recursive) spins forever in native code on /proc/x (ENOENT under a parent that
// exists), deaf to SIGTERM. Each case runs in a child killed after a bound: a hang fails, it does not hang the file.
function makeDirInChild(dir: string): { status: number | null; stderr: string } {
  const script = `import(${JSON.stringify(join(PACKAGE_ROOT, 'dist/src/kit/make-dir.js'))}).then((m) => m.makeDir(process.argv[1])).catch((e) => { console.error(e.code); process.exit(3); })`;
  const run = spawnSync(process.execPath, ['-e', script, dir], { timeout: 10_000, killSignal: 'SIGKILL', encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

describe('a report folder that cannot be created is refused in bounded time', () => {
  it('makeDir refuses /proc/x, /proc/x/y, /sys/x and a path under a file, and makes a nested folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'make-dir-'));
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, '');
      for (const [path, code] of [['/proc/x', 'ENOENT'], ['/proc/x/y', 'ENOENT'], ['/sys/x', /^E(PERM|ACCES|NOENT|ROFS)$/], [join(file, 'x', 'y'), 'ENOTDIR'], [file, 'ENOTDIR']] as const) {
        const run = makeDirInChild(path);
        expect(run.status, `${path}: ${run.stderr}`).toBe(3);
        expect(run.stderr.trim(), path).toMatch(typeof code === 'string' ? new RegExp(`^${code}$`) : code);
      }
      expect(makeDirInChild(join(dir, 'a', 'b', 'c')).status).toBe(0);
      expect(makeDirInChild(join(dir, 'a', 'b', 'c')).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('conformance --report-dir /proc/x exits 2 with one line, promptly', async () => {
    const run = await runConformanceChild(['--only', 'discovery-llms-txt', '--report-dir', '/proc/x'], 30_000);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe('error: cannot write the reports to /proc/x (ENOENT); give --report-dir a folder you can write');
    expect(run.durationMs).toBeLessThan(30_000);
  }, 60_000);
});
