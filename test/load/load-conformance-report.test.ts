import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../harness/run-cli.js';
import { runLoad } from './load-run.js';

// A conformance run and a load run into one report directory give one report.html with both: the
// requirement matrix and the load plots (latency percentiles, throughput over time, errors by kind).

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
});
