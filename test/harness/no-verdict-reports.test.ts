import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformanceChild } from '../../scripts/conformance-runs.js';
import { expectValid } from '../helpers/results-schema.js';

// Issue 36: a run that ends with exit 2 left the previous run's files in the folder, and the Action read the
// old verdict. Now the folder holds this run's no-verdict reports, and nothing of the earlier run.
describe('a run without a verdict says so in its report folder', () => {
  it('an unreachable target: results.json (valid, exit 2, "no verdict: ..."), summary.md and junit.xml of this run; no earlier file left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'no-verdict-'));
    try {
      for (const file of ['results.json', 'junit.xml', 'summary.md', 'report.html']) writeFileSync(join(dir, file), `an earlier run's ${file}: does not conform`);
      const run = await runConformanceChild(['--target', 'url', '--base-url', 'http://127.0.0.1:1', '--seed', '7'], 60_000, dir);
      expect(run.code, run.stderr).toBe(2);
      const line = run.stderr.trimEnd().split('\n').at(-1)!;
      expect(line).toMatch(/^error: cannot reach http:\/\/127\.0\.0\.1:1\//);
      const results = run.results!;
      expectValid(results);
      expect(results).toMatchObject({ exitCode: 2, requirements: [], seed: 7, target: { kind: 'url', baseUrl: 'http://127.0.0.1:1' } });
      expect(results.verdict).toBe(`no verdict: ${line.slice('error: '.length)}`);
      expect(Object.values(results.totals).every((n) => n === 0)).toBe(true);
      const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
      expect(summary).toMatch(/^## MCP conformance: ERROR$/m);
      expect(summary).toContain('no verdict: cannot reach');
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<error message="no verdict: cannot reach/);
      expect(existsSync(join(dir, 'report.html'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
