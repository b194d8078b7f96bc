import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { runCommand } from '../helpers/run-command.js';

interface Step { id?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, string> }
interface Action { inputs: Record<string, { required?: boolean; default?: string }>; outputs: Record<string, { value: string }>; runs: { using: string; steps: Step[] } }

const action = parse(readFileSync(join(PACKAGE_ROOT, 'action.yml'), 'utf8')) as Action;

interface StepRun { code: number | null; stdout: string; stderr: string; summary: string; outputs: Record<string, string>; workspace: string }

/** Runs scripts/action-run.sh as the action's run step does: in a workspace of its own, with GitHub's files. */
async function runStep(env: Record<string, string>): Promise<StepRun> {
  const workspace = mkdtempSync(join(tmpdir(), 'action-'));
  const summaryFile = join(workspace, '.step-summary.md');
  const outputFile = join(workspace, '.output');
  writeFileSync(summaryFile, '');
  writeFileSync(outputFile, '');
  const { MCP_API_KEY: _a, MCP_OTHER_KEY: _b, MCP_REVOKED_KEY: _c, ...inherited } = process.env;
  const ran = await runCommand('bash', [join(PACKAGE_ROOT, 'scripts/action-run.sh')], {
    cwd: workspace,
    env: { ...inherited, HARNESS: PACKAGE_ROOT, GITHUB_STEP_SUMMARY: summaryFile, GITHUB_OUTPUT: outputFile, ...env },
  });
  const outputs = Object.fromEntries(readFileSync(outputFile, 'utf8').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return { ...ran, summary: readFileSync(summaryFile, 'utf8'), outputs, workspace };
}

describe('action.yml', () => {
  it('is a composite action whose run step runs scripts/action-run.sh with every input it declares', () => {
    expect(action.runs.using).toBe('composite');
    const run = action.runs.steps.find((s) => s.id === 'run')!;
    expect(run.run).toBe('bash "$HARNESS/scripts/action-run.sh"');
    const script = readFileSync(join(PACKAGE_ROOT, 'scripts/action-run.sh'), 'utf8');
    for (const name of Object.keys(action.inputs).filter((n) => n !== 'artifact-name')) {
      // Each input reaches the step as a variable the script reads (keys as the command's own variables).
      const variable = Object.entries(run.env!).find(([, v]) => v === `\${{ inputs.${name} }}`)?.[0];
      expect(variable, name).toBeDefined();
      if (!variable!.startsWith('MCP_')) expect(script, `${name} (${variable})`).toContain(variable);
    }
    expect(action.inputs['base-url']!.required).toBe(true);
    expect(action.outputs['exit-code']!.value).toBe('${{ steps.run.outputs.exit-code }}');
    // The reports are uploaded whatever the verdict; the run step's own exit code fails the action.
    const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toMatch(/^always\(\)/);
    // ...when they are this run's (issue 36: a folder this run could not write holds an earlier run's files).
    expect(upload.if).toContain("steps.run.outputs.reports-written == 'true'");
    expect(upload.with!.path).toBe('${{ inputs.report-dir }}');
  });
});

describe('the action\'s run step', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReference();
  });
  afterAll(() => server.close());

  it('against a service that conforms: exit 0, the summary in the job summary, the outputs, reports in the workspace, no key anywhere', async () => {
    const { apiKey } = await bootstrap(server);
    const step = await runStep({ INPUT_BASE_URL: server.baseUrl, MCP_API_KEY: apiKey, INPUT_ONLY: 'discovery-,tools-', INPUT_REPORT_DIR: 'out/conformance', INPUT_STRICT: 'false' });
    expect(step.code, step.stderr).toBe(0);
    expect(step.outputs['exit-code']).toBe('0');
    expect(step.outputs.verdict).toMatch(/^conforms: /);
    expect(step.summary).toMatch(/^## MCP conformance: PASS$/m);
    expect(existsSync(join(step.workspace, 'out/conformance/results.json'))).toBe(true);
    for (const text of [step.stdout, step.stderr, step.summary, readFileSync(join(step.workspace, 'out/conformance/results.json'), 'utf8')]) expect(text).not.toContain(apiKey.split('_live_')[1]);
  }, 120_000);

  it('against a broken service: exit 1, an ::error annotation per failing MUST check, the failure in the summary and the outputs', async () => {
    const step = await runStep({ INPUT_BASE_URL: '', INPUT_ARGS: '--target embedded --mutant auth-missing-key-accepted --seed 1', INPUT_ONLY: 'auth-missing-key-401' });
    expect(step.code, step.stderr).toBe(1);
    expect(step.outputs['exit-code']).toBe('1');
    expect(step.outputs.verdict).toBe('does not conform: 1 requirement(s) fail: auth-missing-key-401');
    expect(step.stdout).toMatch(/^::error title=auth-missing-key-401[^:]*::/m);
    expect(step.summary).toContain('auth-missing-key-401');
  }, 120_000);

  it('no verdict (a key the service refuses): exit 2, and the folder, outputs and summary say so (issue 36: never an earlier run\'s verdict)', async () => {
    const step = await runStep({ INPUT_BASE_URL: server.baseUrl, MCP_API_KEY: `${server.config.keyPrefix}_live_${'B'.repeat(32)}` });
    expect(step.code).toBe(2);
    // The Action passes the key as MCP_API_KEY: the message names where it came from.
    expect(step.stderr).toContain('the service refused the key from the environment variable MCP_API_KEY');
    expect(step.outputs['exit-code']).toBe('2');
    expect(step.outputs.verdict).toMatch(/^no verdict: the service refused the key from the environment variable MCP_API_KEY/);
    expect(step.outputs['reports-written']).toBe('true');
    expect(step.summary).toMatch(/^## MCP conformance: ERROR$/m);
    expect(step.summary).toContain('no verdict: the service refused the key');
    const results = JSON.parse(readFileSync(join(step.workspace, 'mcp-conformance-reports/results.json'), 'utf8')) as { exitCode: number; requirements: unknown[] };
    expect(results.exitCode).toBe(2);
    expect(results.requirements).toEqual([]);
    expect(step.summary + readFileSync(join(step.workspace, 'mcp-conformance-reports/results.json'), 'utf8')).not.toContain('B'.repeat(32));
  }, 60_000);

  it('a run that writes nothing (bad usage) presents none of an earlier run\'s files as its own', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'action-old-'));
    const dir = join(workspace, 'old-reports');
    mkdirSync(dir);
    // An earlier run's folder: a failing verdict against another target.
    writeFileSync(join(dir, 'results.json'), JSON.stringify({ startedAt: '2020-01-01T00:00:00.000Z', exitCode: 2, verdict: 'does not conform: an old run' }));
    writeFileSync(join(dir, 'summary.md'), '## MCP conformance: FAIL\nan old run\n');
    const step = await runStep({ INPUT_BASE_URL: server.baseUrl, INPUT_REPORT_DIR: dir, INPUT_ARGS: '--seed not-a-seed' });
    expect(step.code).toBe(2);
    expect(step.outputs).toEqual({ 'exit-code': '2', verdict: 'no verdict (this run wrote no results.json)', 'reports-written': 'false' });
    expect(step.summary).toBe('');
    rmSync(workspace, { recursive: true, force: true });
  }, 60_000);
});
