import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadErrorMutants } from '../../service/mutants/load-errors.js';
import { expectValidLoad } from './load-schema.js';
import { readReport, reportText, runLoad } from './load-run.js';

// Every fault that only shows under load must be caught: counted under the right error kind, failing the
// errors==0 gate (exit 1) with a JUnit failure. Short runs with a few connections (the concurrency the
// faults need), on the scenario that exercises each fault.

const SCENARIO: Record<string, string> = {
  'load-500-every-nth': 'tools-list',
  'load-stream-progress-lost-when-concurrent': 'schedule-preview',
  'load-stream-result-dropped-every-nth': 'schedule-preview',
  // The scenarios' requests carry one fixed id per request type: a swapped id shows across types.
  'load-wrong-id-when-concurrent': 'mix',
};

const root = mkdtempSync(join(tmpdir(), 'load-mutants-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('load-error mutants are caught by npm run load', () => {
  it('every load-error mutant has a scenario here', () => {
    expect(loadErrorMutants.map((m) => m.name).sort()).toEqual(Object.keys(SCENARIO).sort());
  });

  it.each(loadErrorMutants.map((m) => [m.name, m] as const))('%s', async (name, mutant) => {
    const dir = join(root, name);
    const run = await runLoad(['--mutant', name, '--scenario', SCENARIO[name]!, '--duration', '2', '--connections', '4', '--threshold', 'errors==0', '--report-dir', dir, '--quiet']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^target: .*mutant ${name}`));
    const report = readReport(dir);
    expectValidLoad(report);
    const s = report.scenarios[0]!;
    expect(s.requests).toBeGreaterThan(0);
    // The errors are named by the kind the fault violates, and only by it.
    const kinds = Object.entries(s.errorsByKind).filter(([, n]) => n > 0).map(([k]) => k);
    expect(kinds, JSON.stringify(s.errorsByKind)).toEqual(mutant.violates);
    expect(s.errors).toBe(s.errorsByKind[mutant.violates[0] as keyof typeof s.errorsByKind]);
    const gate = report.thresholds.find((t) => t.expression === 'errors==0')!;
    expect(gate).toMatchObject({ scenario: SCENARIO[name], ok: false, actual: s.errors });
    expect(gate.note).toContain(mutant.violates[0]);
    expect(report.exitCode).toBe(1);
    expect(report.verdict).toMatch(/^FAIL: 1 of 2 thresholds fail/);
    const junit = reportText(dir, 'load-junit.xml');
    expect(junit).toMatch(new RegExp(`<testcase classname="load\\.${SCENARIO[name]}" name="errors==0" time="0">\\s*<failure type="threshold" message="expected errors==0, actual ${s.errors}">`));
    expect(junit).toContain('failures="1"');
    expect(reportText(dir, 'load.md')).toMatch(/❌ .*errors==0/);
    expect(run.stdout).toContain(`FAIL ${SCENARIO[name]}: errors==0`);
  }, 90_000);
});
