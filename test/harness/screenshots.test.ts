import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { program } from '../../src/kit/package-root.js';

// The README's pictures are taken by scripts/screenshots.ts from real runs, in headless Chromium: this runs
// it into a folder of its own (`npm run screenshots` writes docs/screenshots/ the same way).
describe('the report screenshots', () => {
  it('a passing run, a failing streaming run and a combined folder, each drawn by Chromium', async () => {
    const out = mkdtempSync(join(tmpdir(), 'shots-'));
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [program('scripts/screenshots.ts'), '--out', out], { timeout: 240_000 }, (err, stdout, stderr) => resolve({ code: err ? (err.code as number) : 0, stdout, stderr }));
    });
    expect(run.code, run.stderr).toBe(0);
    for (const name of ['passing', 'failing-streaming', 'combined']) {
      const png = join(out, `${name}.png`);
      expect(run.stdout).toContain(png);
      expect(readFileSync(png).subarray(1, 4).toString(), name).toBe('PNG');
      // A page, not a blank: a white 1280 x 1600 PNG compresses to a few kB.
      expect(statSync(png).size, name).toBeGreaterThan(50_000);
    }
  }, 300_000);
});
