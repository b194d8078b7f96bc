/**
 * The capacity reports, from real searches on simulated services of known answers (helpers/simulated-runner):
 * an SLO-bound scenario with an overload, a streaming one the generator bounded, a rate-limited one. The
 * schema holds them and refuses what is not one; the Markdown and HTML put the verdict first and plot each
 * scenario with its marks; JUnit counts what the exit code counts; a key is never written; report.html of a
 * folder that also holds a conformance run gets a Capacity section.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapacityReport } from '../../load/capacity/capacity-result.js';
import { capacityReportProblems } from '../../load/capacity/report/capacity-json.js';
import { renderCapacityHtml } from '../../load/capacity/report/capacity-html.js';
import { renderCapacityJunit } from '../../load/capacity/report/capacity-junit.js';
import { renderCapacityMd } from '../../load/capacity/report/capacity-md.js';
import { writeCapacityReports } from '../../load/capacity/report/capacity-report.js';
import { runCapacity } from '../../load/capacity/run-capacity.js';
import { parseSlo } from '../../load/capacity/slo.js';
import { scenarioByName } from '../../load/scenarios.js';
import { Secrets } from '../../src/kit/scrub.js';
import { runCli } from '../harness/run-cli.js';
import { SimulatedRunner, type Service } from './helpers/simulated-runner.js';

const dir = mkdtempSync(join(tmpdir(), 'capacity-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = `cnv_live_${'R7x'.repeat(12)}`;

async function report(services: Record<string, Service>, slos: Record<string, string>, over: { expectRate?: number } = {}): Promise<CapacityReport> {
  const names = Object.keys(services);
  return runCapacity({
    target: { kind: 'url', baseUrl: 'http://127.0.0.1:9', mcpUrl: 'http://127.0.0.1:9/api/mcp/v1', apiKey: KEY, description: 'url http://127.0.0.1:9' },
    scenarios: names.map((n) => scenarioByName(n)!), slos: new Map(names.map((n) => [n, parseSlo(slos[n]!)])),
    maxRate: 5000, startRate: 50, tolerance: 0.05, arrivals: 'constant', seed: 1, warmupS: 0, windowS: 1, maxWindowS: 10, timeoutS: 10, connections: 64,
    calibrate: false, overload: true, soakFraction: 0.8, maxTimeS: 3600, ...over,
    runner: (s) => new SimulatedRunner(services[s.name]!),
  });
}

let mixed: CapacityReport;
beforeAll(async () => {
  mixed = await report(
    { 'tools-list': { capacity: 1234 }, 'schedule-preview': { capacity: 100_000, generator: 1500 }, 'blocks-list': { capacity: 4000, limit: 600 } },
    { 'tools-list': 'p99<=50ms,errors<=1%', 'schedule-preview': 'ttfp-p99<=20ms,ttfr-p99<=100ms', 'blocks-list': 'p99<=50ms' },
  );
});

describe('capacity reports', () => {
  it('capacity.json matches its schema, and the schema refuses what is not one', () => {
    expect(capacityReportProblems(mixed)).toEqual([]);
    expect(mixed.scenarios.map((s) => [s.scenario, s.bound])).toEqual([['tools-list', 'slo'], ['schedule-preview', 'generator'], ['blocks-list', 'rate-limit']]);
    const { bound: _, ...noBound } = mixed.scenarios[0]!;
    expect(capacityReportProblems({ ...mixed, scenarios: [noBound] }).join('\n')).toMatch(/\/scenarios\/0: must have required property 'bound'/);
    expect(capacityReportProblems({ ...mixed, driver: 'wrk' }).join('\n')).toMatch(/\/driver: must be equal to one of the allowed values/);
  });

  it('capacity.md: the verdict first, a row per scenario, each scenario\'s steps', () => {
    const md = renderCapacityMd(mixed);
    expect(md.split('\n')[0]).toBe('## Capacity: PASS');
    expect(md).toMatch(/^\| tools-list \| `p99<=50ms,errors<=1%` \| 1,2\d\d req\/s \| 1,2\d\d req\/s \| slo \|/m);
    expect(md).toMatch(/^\| schedule-preview \| .* \| at least 800 req\/s \|  \| generator \|/m);
    expect(md).toMatch(/^\| blocks-list \| `p99<=50ms` \| none \|  \| rate-limit \| no capacity: 429s from /m);
    expect(md).toContain('TTFP p99');
    expect(md).toMatch(/- Overload: at 1,?8\d\d(\.\d)? req\/s \(1\.5x\)/);
    expect(md).toMatch(/Rate limit: 429s from \d+ req\/s/);
  });

  it('capacity.html: one plot per scenario with the sustained and breaking rates marked, the SLO line on a log axis; names escaped', () => {
    const html = renderCapacityHtml(mixed);
    expect(html.match(/<svg /g)).toHaveLength(2 * mixed.scenarios.length);
    const s = mixed.scenarios[0]!;
    expect(html).toContain(`<title>sustained ${s.sustained}</title>`);
    expect(html).toContain(`<title>broke ${s.broke}</title>`);
    expect(html).toMatch(/stroke-dasharray="4 3"><title>broke /);
    expect(html).toContain('<title>SLO p99&lt;=50ms</title>');
    expect(html).toContain('ms (log)');
    // Invalid and rate-limited steps are drawn hollow.
    expect(html).toMatch(/fill="#fff" stroke=/);
    const hostile = { ...mixed, scenarios: [{ ...mixed.scenarios[0]!, scenario: '<script>alert(1)</script>' }] };
    const bad = renderCapacityHtml(hostile);
    expect(bad).not.toContain('<script>alert(1)</script>');
    expect(bad).toContain('&lt;script&gt;');
  });

  it('JUnit: a scenario below --expect-rate is a failure with expected and actual; no sound answer is an error', async () => {
    expect(renderCapacityJunit(mixed)).toMatch(/<testsuite name="capacity" tests="3" failures="0" errors="0"/);
    const below = await report({ 'tools-list': { capacity: 300 } }, { 'tools-list': 'p99<=50ms' }, { expectRate: 1000 });
    expect(below.exitCode).toBe(1);
    const xml = renderCapacityJunit(below);
    expect(xml).toMatch(/failures="1"/);
    expect(xml).toMatch(/<failure type="expect-rate" message="expected at least 1000 req\/s, actual \d+ req\/s \(bound slo\)"/);
    const none: CapacityReport = { ...mixed, exitCode: 2, noAnswer: 'tools-list: time ran out', scenarios: [{ ...mixed.scenarios[0]!, bound: 'time', sustained: null }] };
    expect(renderCapacityJunit(none)).toMatch(/errors="1"[\s\S]*<error type="no-answer"/);
    expect(renderCapacityMd(none).split('\n')[0]).toBe('## Capacity: NO ANSWER');
  });

  it('writes four files, none holding the key; a conformance folder gets a Capacity section in report.html', async () => {
    const folder = join(dir, 'folder');
    const conformance = await runCli(['--only', 'version', '--report-dir', folder]);
    expect(conformance.code, conformance.stderr).toBe(0);
    const withKey: CapacityReport = { ...mixed, target: { kind: 'embedded', baseUrl: 'http://127.0.0.1:9', description: 'embedded' }, findings: [...mixed.findings, `a reason that quotes ${KEY}`] };
    const { files } = writeCapacityReports(folder, withKey, Secrets.from({ values: [KEY] }));
    expect(files.map((f) => f.slice(folder.length + 1))).toEqual(['capacity.json', 'capacity.md', 'capacity.html', 'capacity-junit.xml']);
    for (const f of files) expect(readFileSync(f, 'utf8')).not.toContain(KEY.slice(9));
    const { writeReportHtml } = await import('../../src/reports/folder/compose.js');
    writeReportHtml(folder, new Secrets());
    const page = readFileSync(join(folder, 'report.html'), 'utf8');
    expect(page).toContain('Requirement matrix');
    expect(page).toContain('class="capacity-report"');
  }, 120_000);
});
