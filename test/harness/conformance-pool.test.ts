import { afterAll, describe, expect, it } from 'vitest';
import { ConformancePool } from '../../src/cli/conformance-pool.js';
import { runCli } from './run-cli.js';

/** A pool run is the command's run: the same verdict and results, exit 2 with one scrubbed line otherwise. */
describe('the conformance pool', { timeout: 120_000 }, () => {
  const pool = new ConformancePool(2);
  afterAll(() => pool.close());
  const statuses = (run: Awaited<ReturnType<typeof runCli>>) => run.results?.requirements.map((r) => `${r.id}: ${r.status}`);

  it('gives the verdict and results the command gives, on the reference and on a mutant', async () => {
    const args = [['--only', 'auth-missing-key-401', '--seed', '5'], ['--mutant', 'auth-missing-key-accepted', '--only', 'auth-missing-key-401', '--seed', '5']];
    const [pooled, alone] = await Promise.all([Promise.all(args.map((a) => pool.run(a))), Promise.all(args.map((a) => runCli(a)))]);
    expect(pooled.map((r) => r.code)).toEqual([0, 1]);
    expect(pooled.map((r) => r.code)).toEqual(alone.map((r) => r.code));
    expect(pooled.map(statuses)).toEqual(alone.map(statuses));
    expect(pooled[1]!.results!.requirements[0]!.checks.map((c) => c.name)).toEqual(alone[1]!.results!.requirements[0]!.checks.map((c) => c.name));
  });

  it('a usage error is exit 2 with the message, and a key on the command line is not in it', async () => {
    const key = 'cnv_live_0123456789abcdefSECRET';
    const run = await pool.run(['--api-key', key, '--target', 'nowhere']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: .*--target/);
    expect(run.stderr).not.toContain(key);
    expect(run.results).toBeUndefined();
  });

  it('a run past its deadline ends as exit 2, and the next run gets a fresh process', async () => {
    const hung = await pool.run(['--only', 'auth-missing-key-401'], 50);
    expect(hung.code).toBe(2);
    expect(hung.stderr).toMatch(/pool process ended \(SIGKILL\)/);
    const next = await pool.run(['--only', 'auth-missing-key-401', '--seed', '1']);
    expect(next.code).toBe(0);
  });
});
