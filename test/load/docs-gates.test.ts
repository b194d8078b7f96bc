import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { UNTHROTTLED } from '../../load/target.js';
import { startReference, type ReferenceServer } from '../helpers/reference.js';
import { runLoad } from './load-run.js';

// The load gates a team copies from docs/github-actions-load.yml must hold on the reference server on this
// machine: its own command lines, with shorter rounds (the gates are per scenario, not per duration).

interface Workflow { jobs: Record<string, { steps: { name?: string; run?: string }[] }> }
const workflow = parse(readFileSync(join(PACKAGE_ROOT, 'docs/github-actions-load.yml'), 'utf8')) as Workflow;
const steps = Object.values(workflow.jobs)[0]!.steps;

/** The `npm run load -- ...` arguments of a step, its continuation lines joined, quotes removed. */
function loadArgs(stepName: string): string[] {
  const run = steps.find((s) => s.name === stepName)!.run!.replace(/\\\n\s*/g, ' ');
  const line = /npm run load -- (.*?)(?:\|\||$)/m.exec(run)![1]!;
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

describe('the example load workflow\'s gates', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReference(UNTHROTTLED);
  });
  afterAll(() => server.close());

  // The regression gate compares two timed runs; here three other test files share the two cores and can slow
  // one run by 40 %. A retry runs both again, as a team re-runs a noisy job: a gate that is wrong fails every time.
  it('hold on the reference server: the base run, then the pull request\'s against it', { retry: 2, timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-gates-'));
    const shorten = (args: string[]) => args.map((a, i) => (args[i - 1] === '--duration' ? '2' : a === '$BASE_URL' ? server.baseUrl : a.startsWith('reports/') ? join(dir, a.slice('reports/'.length)) : a));
    const base = shorten(loadArgs('Load the base branch'));
    const pr = shorten(loadArgs('Load the pull request'));
    expect(pr).toEqual(expect.arrayContaining(['--rounds', '3', '--baseline', 'errors==0', 'regression<=20%']));
    const baseRun = await runLoad([...base, '--quiet']);
    expect(baseRun.code, baseRun.stdout + baseRun.stderr).toBe(0);
    const prRun = await runLoad([...pr, '--quiet']);
    expect(prRun.code, prRun.stdout + prRun.stderr).toBe(0);
    expect(prRun.stdout).toMatch(/^PASS: all \d+ thresholds hold$/m);
  });
});
