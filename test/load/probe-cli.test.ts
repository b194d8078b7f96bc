import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { program } from '../../src/kit/package-root.js';
import { PROBE_USAGE, readProbeOptions } from '../../src/cli/probe-options.js';
import { commandLineOutcome } from '../helpers/command-line-outcome.js';

// `npm run probe:rate-limit` through main(): only a verdict exits 0 or 1; bad usage exits 2 with the usage,
// an unreachable target or an error inside the probe 2 with one scrubbed line, never a stack trace.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'probe-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run { code: number; stdout: string; stderr: string }

function probe(args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [program('src/cli/probe-rate-limit.ts'), ...args], { cwd: ROOT, timeout: timeoutMs, env: { ...process.env, HARNESS_DEBUG: '', ...env } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

const errorLines = (run: Run) => run.stderr.split('\n').filter((l) => l.startsWith('error: '));

describe('probe command line', () => {
  // The table is judged in this process (commandLineOutcome: the option reader, then main()'s describeFailure).
  it.each([
    [['--max-time', ''], /^error: --max-time must be a number from 5 to 300 seconds \(got ""\)$/m],
    [['--max-requests=-5'], /^error: --max-requests must be a whole number from 100 to 2000000/m],
    [['--refine-steps', '1.5'], /^error: --refine-steps must be a whole number from 0 to 10/m],
    [['--tolerance', '101'], /^error: --tolerance must be from 0 to 100 percent/m],
    [['--mutant', 'rate-limit-no-retry'], /^error: unknown mutant "rate-limit-no-retry"; the nearest of the \d+ known: rate-limit-no-retry-after\b/m],
    [['--target', 'stdio'], /^error: --target must be embedded, url or container \(got "stdio"\)$/m],
    [['--sibling-key', ''], /^error: --sibling-key is empty/m],
  ])('bad usage %j exits 2 with the message and the usage', (args, message) => {
    const run = commandLineOutcome((onSecrets) => readProbeOptions([...args, '--report-dir', join(dir, 'usage')], onSecrets), PROBE_USAGE);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('\n\nUsage: npm run probe:rate-limit');
    expect(run.stderr.match(/^error: /gm)).toHaveLength(1);
  });

  it('the command itself: bad usage exits 2 with the message and the usage, before any traffic', async () => {
    const run = await probe(['--bogus', '--report-dir', join(dir, 'usage')]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^error: Unknown option '--bogus'/m);
    expect(run.stderr).toContain('\n\nUsage: npm run probe:rate-limit');
    expect(errorLines(run)).toHaveLength(1);
    expect(run.stderr).not.toMatch(/^target: /m);
  }, 60_000);

  it('an unreachable target exits 2 with one line: no usage, no stack', async () => {
    const run = await probe(['--base-url', 'http://127.0.0.1:9', '--report-dir', join(dir, 'unreachable')], { MCP_API_KEY: `cnv_live_${'u'.repeat(40)}` });
    expect(run.code, run.stderr).toBe(2);
    expect(errorLines(run)).toEqual([expect.stringMatching(/did not answer/)]);
    expect(run.stderr).not.toContain('Usage:');
    expect(run.stderr).not.toMatch(/^\s+at /m);
  }, 60_000);

  it('an error inside the probe (reports that cannot be written) exits 2 with one scrubbed line, not a stack trace', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    // The probe runs (briefly) against the embedded reference, then cannot create its report directory under
    // a file: an ENOTDIR Error whose message quotes the path, here holding a key.
    const key = `cnv_live_${'Pq7'.repeat(14)}`;
    const run = await probe(['--max-time', '5', '--step-time', '0.5', '--refine-steps', '0', '--report-dir', join(file, key)], { MCP_OTHER_KEY: key }, 90_000);
    expect(run.code, run.stderr).toBe(2);
    expect(errorLines(run)).toEqual([expect.stringMatching(/^error: ENOTDIR: not a directory, mkdir '.*(\[REDACTED\]|<key#\d+>)'$/)]);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.stdout + run.stderr).not.toContain(key);
  }, 120_000);
});
