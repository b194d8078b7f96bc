/**
 * `capacity` end to end against the embedded reference (the container target's run: test/container/
 * capacity-container.test.ts): the verdict first, a line per scenario naming its bound, the four files, the
 * folder's earlier capacity files gone when a run has no answer, and no key anywhere.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CapacityReport } from '../../load/capacity/capacity-result.js';
import { capacityReportProblems } from '../../load/capacity/report/capacity-json.js';
import { program } from '../../src/kit/package-root.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'capacity-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run { code: number; stdout: string; stderr: string }

function capacity(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [program('src/cli/capacity.ts'), ...args], { cwd: ROOT, timeout: 240_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, MCP_API_KEY: '', ...env } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

describe('the capacity command', () => {
  it('against the embedded reference: a search per scenario that says its bound, the verdict first, four files', async () => {
    const out = join(dir, 'embedded');
    // Caps and SLOs that the reference holds on a busy machine too (its streams take ~300 ms): what is proven is the run, not this machine's speed.
    const run = await capacity(['--scenario', 'tools-list,schedule-preview', '--slo-file', sloFile(), '--max-rate', '100', '--start-rate', '50', '--max-time', '180', '--report-dir', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^target: embedded reference server/m);
    // A line per step as it ends (its verdict is the machine's business: a busy one may see a step run again).
    expect(run.stderr).toMatch(/^tools-list: step 1 geometric 50 req\/s -> (PASS|FAIL|INVALID|UNCERTAIN) \(achieved /m);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^PASS: tools-list (holds (at least )?[\d,.]+ req\/s|holds no rate within its SLO); schedule-preview (holds (at least )?[\d,.]+ req\/s|holds no rate within its SLO)$/);
    expect(lines[1]).toMatch(/^ {2}tools-list \[(slo|cap|generator)\]: /);
    expect(lines[2]).toMatch(/^ {2}schedule-preview \[(slo|cap|generator)\]: /);
    expect(run.stdout).toMatch(/^spent: \d+ requests to the target in [\d.]+ s \(and \d+ to the harness's own no-op endpoint, calibrating\)$/m);
    const report = JSON.parse(readFileSync(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
    expect(capacityReportProblems(report)).toEqual([]);
    expect(report.target.kind).toBe('embedded');
    expect(report.scenarios.map((s) => s.scenario)).toEqual(['tools-list', 'schedule-preview']);
    expect(report.scenarios[1]!.steps[0]!.ttfrMs!.count).toBeGreaterThan(0);
    // The reference's server process is the harness's own: its CPU and memory are read.
    expect(report.scenarios[0]!.steps[0]!.serverCpuCores).toBeGreaterThan(0);
    expect(report.scenarios[0]!.steps[0]!.serverRssMiB).toBeGreaterThan(10);
    for (const f of ['capacity.md', 'capacity.html', 'capacity-junit.xml']) expect(existsSync(join(out, f)), f).toBe(true);
    for (const text of [run.stdout, run.stderr, ...['capacity.json', 'capacity.md', 'capacity.html'].map((f) => readFileSync(join(out, f), 'utf8'))]) expect(text).not.toMatch(/_live_[A-Za-z0-9]{8,}/);
  }, 240_000);

  it('--expect-rate above what the search can show: exit 1, and the JUnit case fails with expected and actual', async () => {
    const out = join(dir, 'expect');
    const run = await capacity(['--max-rate', '100', '--start-rate', '100', '--slo', 'p99<=1s,errors<=1%', '--no-calibrate', '--no-overload', '--expect-rate', '150', '--max-time', '120', '--report-dir', out]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout.split('\n')[0]).toBe('FAIL: tools-list holds at least 100 req/s');
    expect(run.stdout).toMatch(/tools-list: sustained 100 req\/s, below --expect-rate 150 req\/s/);
    expect(readFileSync(join(out, 'capacity-junit.xml'), 'utf8')).toMatch(/<failure type="expect-rate" message="expected at least 150 req\/s, actual at least 100 req\/s \(bound cap\)"/);
  }, 240_000);

  it('a run with no answer (exit 2) leaves no earlier run\'s capacity files in its folder', async () => {
    const out = join(dir, 'stale');
    const first = await capacity(['--max-rate', '50', '--start-rate', '50', '--slo', 'p99<=1s,errors<=1%', '--no-calibrate', '--no-overload', '--max-time', '120', '--report-dir', out]);
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(join(out, 'capacity.json'))).toBe(true);
    const unreachable = await capacity(['--base-url', 'http://127.0.0.1:9', '--report-dir', out], { MCP_API_KEY: `cnv_live_${'u'.repeat(40)}` });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr.match(/^error: /gm)).toHaveLength(1);
    expect(existsSync(join(out, 'capacity.json'))).toBe(false);
    expect(unreachable.stderr).not.toContain('u'.repeat(40));
  }, 240_000);
});

function sloFile(): string {
  const path = join(dir, 'slo.json');
  writeFileSync(path, JSON.stringify({ default: 'p99<=500ms,errors<=1%', 'schedule-preview': 'ttfp-p99<=2s,ttfr-p99<=4s,errors<=1%' }));
  return path;
}
