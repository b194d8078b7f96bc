import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConformanceRuns, runConformanceChild } from '../../scripts/conformance-runs.js';
import { runCli } from './run-cli.js';

// The table of bad inputs goes through a pool of processes (src/cli/conformance-pool.ts) that answer an error
// with what the command prints on stderr (main()'s describeFailure, the command's usage and scrubber): a
// process per case spent 1.2 s of CPU loading node, tsx and the preloaded packages, 30 CPU-s for the table.
// The command's own process (its exit code and streams through main()) is what the cases after the table
// check, started as a user starts it; test/harness/cli-main.test.ts holds main() itself.
const pool = new ConformanceRuns(2);

// Side by side (vitest runs five at a time): one after another, the commands made this file the run's
// longest (88 s of a clean-clone CI run), mostly each process loading node and the harness.
describe.concurrent('conformance command: bad input is a clear error with exit 2', { timeout: 90_000 }, () => {
  it.each([
    [['--bogus'], /bogus/],
    [['--target', 'mars'], /--target must be/],
    [['--target', 'url'], /needs --base-url/],
    [['--base-url', 'ftp://x'], /http\(s\) URL/],
    [['--only', ''], /--only needs/],
    [['--only', 'no-such-requirement'], /selects no requirement/],
    [['--seed', '-3'], /--seed/],
    [['--seed=-1'], /--seed must be a whole number from 0 to /],
    // Number("") is 0: an empty seed must not become seed 0.
    [['--seed', ''], /--seed must be a whole number from 0 to \d+ \(got ""\)/],
    [['--seed', '1.5'], /--seed must be a whole number/],
    [['--timeout', ''], /--timeout must be a whole number from 100 to 600000/],
    [['--runs', ''], /--runs must be a whole number from 1 to/],
    [['--bootstrap-budget', ''], /--bootstrap-budget must be a whole number from 0 to 10000/],
    [['--wait-budget', ''], /--wait-budget must be a number from 0 to 3600 seconds/],
    [['--api-key', ''], /--api-key is empty/],
    [['--target', 'embedded', '--base-url', 'http://127.0.0.1:1'], /--target embedded runs its own server: it takes no --base-url/],
    [['--timeout', '5'], /--timeout/],
    [['--protocol', '1999-01-01'], /--protocol/],
    [['--reporter', 'gh'], /--reporter must be default or github \(got "gh"\)/],
    [['--header', 'no colon'], /--header/],
    [['--baseline', '/nonexistent/baseline.json'], /--baseline/],
    [['--mutant', 'x', '--target', 'url', '--base-url', 'http://127.0.0.1:1'], /embedded target only/],
    [['--mutant', 'no-such-mutant'], /unknown mutant "no-such-mutant"; the nearest of the \d+ known: /],
    [['--target', 'url', '--base-url', 'http://127.0.0.1:1'], /cannot reach/],
  ])('%j', async (args, message) => {
    const run = await pool.run(args, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    // One error line, never a stack trace; bad usage is followed by the usage, a target error is not.
    expect(run.stderr.match(/^error: /gm), run.stderr).toHaveLength(1);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('a usage error is followed by the usage; an unreachable target is one line without it', async () => {
    const [usage, unreachable] = await Promise.all([runCli(['--seed', ''], 30_000), runCli(['--target', 'url', '--base-url', 'http://127.0.0.1:1'], 30_000)]);
    expect(usage.stderr).toMatch(/^error: --seed [^\n]*\n\nUsage: npm run conformance/);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).not.toContain('Usage:');
    expect(unreachable.stderr.trimEnd().split('\n').at(-1)).toMatch(/^error: cannot reach http:\/\/127\.0\.0\.1:1\//);
  }, 60_000);

  it('reports that cannot be written exit 2 before the run, with one scrubbed line, never a stack or exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-error-'));
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, '');
      // A report directory under a file: refused before the run sends anything (an error inside the harness
      // otherwise: test/harness/cli-main.test.ts), and the message quotes the path, here holding the run's other key.
      const key = `cnv_live_${'Zq9'.repeat(14)}`;
      const run = await runConformanceChild(['--only', 'discovery-llms-txt', '--report-dir', join(file, key)], 120_000, undefined, { MCP_OTHER_KEY: key });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(/^error: cannot write the reports to .*(\[REDACTED\]|<key#1>) \(ENOTDIR\); give --report-dir a folder you can write$/);
      expect(run.stderr.match(/^error: /gm)).toHaveLength(1);
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stderr).not.toContain('Usage:');
      expect(run.stdout + run.stderr).not.toContain(key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it('--help prints the usage and exits 0', async () => {
    const run = await runCli(['--help'], 30_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Usage: npm run conformance/);
    expect(run.stdout).toMatch(/Exit status\n {2}0 {2}conforms\n {2}1 {2}a requirement fails[^\n]*\n {2}2 {2}anything else, never a verdict: bad usage/);
  });
});
