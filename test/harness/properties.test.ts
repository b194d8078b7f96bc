import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConformanceRuns } from '../../scripts/conformance-runs.js';
import { REPORT_FILES } from '../../src/reports/index.js';
import { expectValid } from '../helpers/results-schema.js';
import { runCli } from './run-cli.js';

/**
 * Property checks end to end: a failure is shrunk, recorded with its seed and path in results.json and
 * every report (keys never shown), the printed replay command reproduces exactly that counterexample,
 * the same seed finds the same one, and the budgets (quick, deep) do what they say.
 */

const KEY_RE = /_live_[A-Za-z0-9]{40}/;
const MUTANT = ['--mutant', 'auth-key-missing-inner-character-accepted', '--only', 'auth-altered-key-401'];

function propertyCheck(run: Awaited<ReturnType<typeof runCli>>) {
  const check = run.results?.requirements.flatMap((r) => r.checks).find((c) => c.property);
  expect(check, run.stderr).toBeDefined();
  return check!;
}

/** The replay command's arguments after `npm run conformance --`. */
function replayArgs(replay: string): string[] {
  const args = replay.replace(/^npm run conformance -- /, '').split(' ');
  expect(args).toContain('--replay');
  return args;
}

describe.concurrent('property checks', () => {
  // The first run is the command's (its console names the seed); the others, whose results and exit codes are
  // what matters, go through a conformance pool (the command's verdict and results: conformance-pool.test).
  const pool = new ConformanceRuns(2);
  const pooled = (args: string[]) => pool.run(args);

  it('a failure is shrunk, recorded with seed and path in every report, and its replay reproduces it exactly', async () => {
    const run = await runCli([...MUTANT, '--seed', '7']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/seed 7\b/);
    expectValid(run.results);
    const c = propertyCheck(run);
    expect(c.status).toBe('fail');
    const p = c.property!;
    expect(p).toMatchObject({ id: 'auth-key-edits', seed: 7 });
    expect(p.path).toMatch(/^\d+(:\d+)*$/);
    expect(p.counterexample).toMatch(/deleted|inserted|replaced|appended|truncated/);
    expect(c.message).toContain(`seed 7, path ${p.path}`);
    expect(c.replay).toContain(`--seed 7 --replay auth-key-edits:${p.path}`);
    const texts = Object.fromEntries(REPORT_FILES.map((f) => [f, readFileSync(join(run.reportDir, f), 'utf8')]));
    expect(texts['summary.md']).toContain('### Properties');
    for (const f of ['summary.md', 'junit.xml', 'report.html']) expect(texts[f], f).toContain('property auth-key-edits: failed at run');
    for (const [f, text] of Object.entries(texts)) expect(text, f).not.toMatch(KEY_RE);

    const replay = await pooled(replayArgs(c.replay!));
    expect(replay.code, replay.stderr).toBe(1);
    const again = propertyCheck(replay).property!;
    expect(again.replayed).toBe(p.path);
    expect(again.runs).toBe(1);
    expect(again.counterexample).toBe(p.counterexample);
  }, 120_000);

  it("the same seed finds the same counterexample, and either run's path replays it", async () => {
    const [a, b] = await Promise.all([pooled([...MUTANT, '--seed', '11']), pooled([...MUTANT, '--seed', '11'])]);
    const found = propertyCheck(a).property!;
    expect(found.counterexample).toBeDefined();
    expect(propertyCheck(b).property!.counterexample).toBe(found.counterexample);
    // The shrink paths themselves may differ: each run bootstraps a key with a random secret, and some edits
    // depend on its characters (one replaced by itself leaves a live key), so a shrink candidate can be judged
    // differently in the two runs (seen once in 3 full runs of npm test). What must hold is that a path, replayed with the seed, gives back the same counterexample.
    const replay = await pooled(replayArgs(propertyCheck(b).replay!));
    expect(replay.code, replay.stderr).toBe(1);
    expect(propertyCheck(replay).property!.counterexample).toBe(found.counterexample);
  }, 120_000);

  it('deep mode (--runs) runs every run with no time box; the reference passes', async () => {
    const run = await pooled(['--only', 'auth-unknown-key-401', '--runs', '1500', '--seed', '3']);
    expect(run.code, run.stderr).toBe(0);
    const p = propertyCheck(run).property!;
    expect(p).toMatchObject({ id: 'auth-any-value', runsRequested: 1500, runs: 1500, interrupted: false });
  }, 120_000);

  it('a time box shorter than the search interrupts it and says so', async () => {
    const run = await pooled(['--only', 'auth-unknown-key-401', '--runs', '100000', '--property-time', '300', '--seed', '3']);
    expect(run.code, run.stderr).toBe(0);
    const p = propertyCheck(run).property!;
    expect(p.interrupted).toBe(true);
    expect(p.runs).toBeGreaterThan(0);
    expect(p.runs).toBeLessThan(100000);
  }, 120_000);

  it.each([
    [['--runs', '0'], /--runs must be/],
    [['--property-time=-1'], /--property-time must be/],
    [['--property-time', 'soon'], /--property-time must be/],
    [['--replay', 'auth-key-edits'], /--replay must look like/],
    [['--replay', 'auth-key-edits:1:2'], /--replay needs the --seed/],
  ])('rejects %j with a clear error (exit 2)', async (args, message) => {
    const run = await pooled(args as string[]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    // Queued in the pool behind the searches above: the wait, not the answer, is what takes time.
  }, 120_000);
});
