import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composeReportHtml, writeReportHtml } from '../../src/reports/folder/compose.js';
import { aliasOf, Secrets } from '../../src/kit/scrub.js';

/** A secret's alias for the run (src/kit/scrub.ts) as an HTML page shows it. */
const escapedAlias = (secret: string) => aliasOf(secret).replace('<', '&lt;').replace('>', '&gt;');
import type { Results } from '../../src/engine/results.js';
import { renderHtml } from '../../src/reports/report-html.js';
import type { ProbeResult } from '../../load/probe/probe.js';
import { renderProbeHtml, renderProbeSection } from '../../load/probe/probe-report.js';
import { BODY, PALETTE, sectionStyle } from '../../src/kit/page-style.js';

// The report folder's page: report.html is the conformance run's page, and any load or probe run written
// into the same folder adds its section, whichever ran last. Without a conformance run there is none.

const root = mkdtempSync(join(tmpdir(), 'report-folder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SECRET = 'sessionSecret-0123456789';

function results(): Results {
  return {
    schemaVersion: 1, tool: { name: 'mcp-canvas-harness', version: '0.1.0' },
    target: { kind: 'embedded', baseUrl: 'http://127.0.0.1:1', mcpUrl: 'http://127.0.0.1:1/api/mcp/v1' },
    profile: 'reference', protocolRevision: '2025-11-25', seed: 1, strict: false, startedAt: '2026-01-02T03:04:05.000Z', durationMs: 1234,
    requirements: [{ id: 'version', group: 'versioning', level: 'MUST', source: 'service.md', text: 'The version sentence.', status: 'pass', checks: [] }],
    totals: { pass: 1, fail: 0, warn: 0, notTestable: 0, untested: 0, error: 0 },
    verdict: 'conforms: no MUST requirement fails',
    exitCode: 0,
  };
}

function probe(target: { kind: string; baseUrl: string } = { kind: 'embedded', baseUrl: 'http://127.0.0.1:2' }): ProbeResult {
  return {
    schemaVersion: 1, tool: { name: 'probe-rate-limit', version: '1' },
    target: { ...target, description: `${target.kind} ${target.baseUrl} (${SECRET})` },
    keys: 'given', startedAt: '2026-01-02T03:04:05.000Z', durationS: 3, requests: 40,
    verdicts: [{ id: 'retry-after-present', name: 'Retry-After on every 429', status: 'pass', message: 'all 5 429s carried Retry-After' }],
    findings: ['sustained limit: 20 req/s'],
    sustained: { ratePerSecond: 20 },
    steps: [{ index: 1, phase: 'geometric', offered: 40, accepted2xx: 20, throttled429: 20, other: 0, notSent: 0, durationS: 1, acceptedRate: 20, throttledShare: 0.5, class: 'throttled' }],
    exitCode: 0,
  } as unknown as ProbeResult; // only what the renderers read
}

function folder(name: string, files: Record<string, unknown>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, value] of Object.entries(files)) writeFileSync(join(dir, file), typeof value === 'string' ? value : JSON.stringify(value));
  return dir;
}

describe('the report folder composer', () => {
  const secrets = Secrets.from({ values: [SECRET] });

  it('renders the conformance page alone as the conformance writer does', () => {
    const dir = folder('alone', { 'results.json': results() });
    expect(composeReportHtml(dir, secrets)).toBe(renderHtml(results()));
  });

  it('adds a probe section after the matrix, scrubbed of the secrets it is given', () => {
    const dir = folder('with-probe', { 'results.json': results(), 'probe.json': probe() });
    const path = writeReportHtml(dir, secrets);
    expect(path).toBe(join(dir, 'report.html'));
    const html = readFileSync(path!, 'utf8');
    expect(html.indexOf('Requirement matrix')).toBeLessThan(html.indexOf('<section class="probe-report">'));
    expect(html).toContain('<h2>Rate-limit probe: <span class="pass">PASS</span></h2>');
    // Named in the page's header with its verdict and time, and reached from the navigation.
    expect(html).toContain('<li><a href="#probe">Rate-limit probe: <b>PASS</b></a> <span class="muted">started 2026-01-02T03:04:05.000Z</span></li>');
    expect(html).toMatch(/<nav class="sections"[^>]*>.*<a href="#probe">Rate-limit probe<\/a><\/nav>/);
    expect(html).toContain('<div id="probe"><section class="probe-report">');
    expect(html).not.toContain(SECRET);
    expect(html).toContain(escapedAlias(SECRET));
  });

  // A folder reused by a run against another deployment keeps the other run's files: never shown as this target's.
  it('leaves out a probe.json of another target, and says so in the header', () => {
    const dir = folder('other-target', { 'results.json': { ...results(), target: { kind: 'url', baseUrl: 'https://staging.example', mcpUrl: 'https://staging.example/api/mcp/v1' } }, 'probe.json': probe({ kind: 'url', baseUrl: 'https://prod.example' }) });
    const html = composeReportHtml(dir, secrets)!;
    expect(html).not.toContain('<section class="probe-report">');
    expect(html).toContain(`probe.json in this folder is a run against another target (url https://prod.example (${escapedAlias(SECRET)}), started 2026-01-02T03:04:05.000Z): not shown here`);
    // The same deployment (a trailing slash aside) is shown.
    const same = folder('same-target', { 'results.json': { ...results(), target: { kind: 'url', baseUrl: 'https://staging.example', mcpUrl: 'https://staging.example/api/mcp/v1' } }, 'probe.json': probe({ kind: 'url', baseUrl: 'https://staging.example/' }) });
    expect(composeReportHtml(same, secrets)).toContain('<section class="probe-report">');
  });

  it('conformance, load and probe pages share one look: one palette and body, the sections scoped to their class', () => {
    expect(renderHtml(results())).toContain(PALETTE);
    expect(renderHtml(results())).toContain(BODY);
    const probePage = renderProbeHtml(probe());
    expect(probePage).toContain(PALETTE);
    expect(probePage).toContain(sectionStyle('.probe-report'));
    expect(renderProbeSection(probe())).toContain(sectionStyle('.probe-report'));
  });

  // One point is no curve: drawn as a chart it reads as a broken one.
  it('a probe of one step says so in words instead of drawing a one-point chart', () => {
    const one = renderProbeSection(probe());
    expect(one).toContain('One step only (offered 40 requests/s: served 20/s, 20 × 429 in 1.0 s): no curve to draw.');
    expect(one).not.toContain('Offered vs served rate');
    const two = probe();
    two.steps = [...two.steps, { ...two.steps[0]!, index: 2, offered: 80 }];
    expect(renderProbeSection(two)).toContain('Offered vs served rate');
  });

  it('leaves out a load.json or probe.json it cannot read or does not know', () => {
    const dir = folder('foreign', { 'results.json': results(), 'load.json': { schemaVersion: 99 }, 'probe.json': '{not json' });
    expect(composeReportHtml(dir, secrets)).toBe(renderHtml(results()));
  });

  it('writes no report.html without a conformance run, and says so when results.json is unreadable', () => {
    const dir = folder('no-conformance', { 'probe.json': probe() });
    expect(writeReportHtml(dir, secrets)).toBeUndefined();
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
    const broken = folder('broken', { 'results.json': '{' });
    expect(() => writeReportHtml(broken, secrets)).toThrow(/results\.json cannot be read/);
  });
});
