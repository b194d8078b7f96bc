import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../harness/run-cli.js';
import { runLoad } from './load-run.js';
import { program } from '../../src/kit/package-root.js';

// A conformance run and a load run into one report directory give one report.html with both: the
// requirement matrix and the load plots (latency percentiles, throughput over time, errors by kind). A
// probe run into it adds its section too (src/reports/folder composes the page from what the folder holds).

const dir = mkdtempSync(join(tmpdir(), 'load-into-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('load plots in the conformance report', () => {
  it('a load run into a conformance report directory adds its section to report.html', async () => {
    const conformance = await runCli(['--only', 'version', '--report-dir', dir]);
    expect(conformance.code, conformance.stderr).toBe(0);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).not.toContain('load-report');

    const load = await runLoad(['--scenario', 'tools-list', '--duration', '1', '--connections', '2', '--report-dir', dir, '--quiet']);
    expect(load.code, load.stderr).toBe(0);
    expect(load.stdout).toContain(join(dir, 'report.html'));
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    // Still the conformance report, now with the load section and its charts.
    expect(html).toContain('Requirement matrix');
    expect(html).toContain('class="load-report"');
    expect(html.match(/<svg /g)?.length).toBeGreaterThanOrEqual(2); // latency percentiles, throughput over time
    expect(html).toContain('No errors.');
  }, 120_000);

  it('a probe run into the same directory adds its section, and the load section stays', async () => {
    const probe = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [program('src/cli/probe-rate-limit.ts'), '--max-time', '5', '--max-requests', '300', '--start-rate', '10', '--step-time', '0.5', '--report-dir', dir],
        { cwd: fileURLToPath(new URL('../..', import.meta.url)), timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }));
    });
    expect([0, 1], probe.stderr).toContain(probe.code);
    expect(probe.stdout).toContain(join(dir, 'report.html'));
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('Requirement matrix');
    expect(html).toContain('class="load-report"');
    expect(html).toContain('<section class="probe-report">');
    // Its curve, or (a five-second budget may end before a second step) the words for why there is none.
    expect(html).toMatch(/Offered vs served rate|: no curve to draw\.<\/p>/);
  }, 90_000);
});
