import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

describe('conformance command: bad input is a clear error with exit 2', () => {
  it.each([
    [['--bogus'], /bogus/],
    [['--target', 'mars'], /--target must be/],
    [['--target', 'url'], /needs --base-url/],
    [['--base-url', 'ftp://x'], /http\(s\) URL/],
    [['--only', ''], /--only needs/],
    [['--only', 'no-such-requirement'], /selects no requirement/],
    [['--seed', '-3'], /--seed/],
    [['--timeout', '5'], /--timeout/],
    [['--protocol', '1999-01-01'], /--protocol/],
    [['--header', 'no colon'], /--header/],
    [['--baseline', '/nonexistent/baseline.json'], /--baseline/],
    [['--mutant', 'x', '--target', 'url', '--base-url', 'http://127.0.0.1:1'], /embedded target only/],
    [['--mutant', 'no-such-mutant'], /unknown mutant "no-such-mutant"; known: /],
    [['--target', 'url', '--base-url', 'http://127.0.0.1:1'], /cannot reach/],
  ])('%j', async (args, message) => {
    const run = await runCli(args, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('--help prints the usage and exits 0', async () => {
    const run = await runCli(['--help'], 30_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Usage: npm run conformance/);
  });
});
