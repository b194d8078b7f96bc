import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Results } from '../../src/engine/results.js';
import { renderHtml } from '../../src/reports/report-html.js';
import { findChromium } from '../../src/kit/chromium.js';
import { runCli } from './run-cli.js';

/**
 * report.html in a real browser: Debian's headless Chromium loads the file (no network: the page's CSP
 * allows nothing external, and Chromium's own background traffic is switched off), and the test reads
 * the DOM after the inline script ran. A missing Chromium fails the test: it is installed by
 * scripts/setup.sh (scripts/setup-browser.sh).
 */

const chromium = findChromium();
const work = mkdtempSync(join(tmpdir(), 'report-render-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let profiles = 0;
/** Runs headless Chromium on a file with the given mode flags; returns stdout (the DOM for --dump-dom). */
function browse(file: string, mode: string[], hash = ''): Promise<string> {
  if (!chromium) throw new Error('chromium is not installed: run scripts/setup.sh (it calls scripts/setup-browser.sh, which installs Debian\'s chromium)');
  const profile = join(work, `profile-${(profiles += 1)}`);
  const args = [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-extensions', '--mute-audio', `--user-data-dir=${profile}`,
    ...mode, `${pathToFileURL(file).href}${hash}`,
  ];
  return new Promise((resolve, reject) => {
    execFile(chromium, args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`chromium failed: ${err.message}\n${stderr.slice(-2000)}`));
      else resolve(stdout);
    });
  });
}

/** The <tr> elements of the matrix as the browser serialised them. */
function matrixRows(dom: string): string[] {
  return dom.match(/<tr class="req"[^>]*>/g) ?? [];
}

describe('report.html renders in headless Chromium', () => {
  it('chromium is installed (scripts/setup.sh)', () => {
    expect(chromium, 'chromium is not installed: run scripts/setup.sh (it calls scripts/setup-browser.sh)').toBeDefined();
  });

  it('a failing run: the script ran, the matrix has every row, the failure shows expected/actual and its wire log', async () => {
    const run = await runCli(['--only', 'version', '--mutant', 'v2-answered', '--seed', '1']);
    expect(run.results, run.stderr).toBeDefined();
    const file = join(run.reportDir, 'report.html');
    const dom = await browse(file, ['--dump-dom']);
    expect(dom).toMatch(/<html lang="en" data-ready="1">/);
    const rows = matrixRows(dom);
    expect(rows.map((r) => /data-id="([^"]+)"/.exec(r)![1]).sort()).toEqual(run.results!.requirements.map((r) => r.id).sort());
    expect(rows.every((r) => !/\shidden/.test(r))).toBe(true);
    expect(dom).toContain('2 of 2 requirements shown');
    const failure = /<article class="failure" id="req-version-other-paths-404"[\s\S]*?<\/article>/.exec(dom)?.[0];
    expect(failure, 'the failure card').toBeDefined();
    expect(failure).toMatch(/<h5>expected<\/h5><pre>[^<]*404 or 410[^<]*<\/pre>/);
    expect(failure).toMatch(/<h5>actual<\/h5><pre>200<\/pre>/);
    expect(failure).toMatch(/Wire log: \d+ exchanges?/);
    expect(failure).toMatch(/<span class="method">POST<\/span> <span class="url">http:\/\/127\.0\.0\.1:\d+\/api\/mcp\/v2<\/span>/);
    expect(failure).toMatch(/<span class="status http2">200<\/span>/);
    expect(failure).toContain('Bearer [REDACTED 49 chars]');
    expect(failure).toContain('--only version-other-paths-404 --seed 1');
    expect(dom).not.toMatch(/_live_[A-Za-z0-9]{40}/);

    // The status filter, preselected from the address: only the failing row stays visible.
    const filtered = await browse(file, ['--dump-dom'], '#status=fail');
    const visible = matrixRows(filtered).filter((r) => !/\shidden/.test(r));
    expect(visible.map((r) => /data-id="([^"]+)"/.exec(r)![1])).toEqual(['version-other-paths-404']);
    expect(filtered).toContain('1 of 2 requirements shown');
    expect(filtered).toMatch(/<button type="button" data-filter="fail" aria-pressed="true">/);
    expect(filtered).toMatch(/<article class="failure" id="req-version-other-paths-404" data-status="fail" data-search="[^"]*">/);
    const passOnly = await browse(file, ['--dump-dom'], '#status=pass');
    expect(passOnly).toMatch(/<article class="failure" id="req-version-other-paths-404" [^>]*hidden/);

    // A screenshot to look at (kept beside the report while the test runs; `npx vitest run` it by hand to view one).
    const shot = join(run.reportDir, 'report.png');
    await browse(file, ['--window-size=1280,1400', '--hide-scrollbars', `--screenshot=${shot}`]);
    expect(statSync(shot).size).toBeGreaterThan(20_000);
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
  }, 120_000);

  it('SSE events with their arrival times, and hostile text stays text', async () => {
    const hostile = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>';
    const results: Results = {
      schemaVersion: 1, tool: { name: 'mcp-canvas-harness', version: '0.1.0' },
      target: { kind: 'url', baseUrl: 'http://127.0.0.1:9', mcpUrl: 'http://127.0.0.1:9/api/mcp/v1' },
      profile: 'reference', protocolRevision: '2025-11-25', seed: 2, strict: false, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 900,
      requirements: [{
        id: 'stream-progress-spaced', group: 'streaming', level: 'SHOULD', source: 'service.md §Streaming', text: `Progress is spaced ${hostile}`, status: 'warn',
        checks: [{
          name: `progress arrives over time ${hostile}`, suite: 'suites/streaming.suite.ts > streaming', requirementIds: ['stream-progress-spaced'], status: 'fail',
          message: `all events arrived at once ${hostile}`, expected: '>= 20 ms apart', actual: [5.1, 5.2], observations: [], durationMs: 20,
          wire: [{
            request: { method: 'POST', url: 'http://127.0.0.1:9/api/mcp/v1', headers: { authorization: 'Bearer [REDACTED]' }, body: '{"jsonrpc":"2.0","id":3,"method":"tools/call"}' },
            response: {
              status: 200, headers: { 'content-type': 'text/event-stream' }, headersAt: 4, endAt: 6, closed: true,
              events: [
                { at: 5.1, event: 'message', data: '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}' },
                { at: 5.2, id: 'e2', data: JSON.stringify({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: hostile }] } }) },
              ],
            },
            startedAt: '2026-01-01T00:00:00.100Z',
          }],
        }],
      }],
      totals: { pass: 0, fail: 0, warn: 1, notTestable: 0, untested: 0, error: 0 },
      verdict: 'conforms: no MUST requirement fails', exitCode: 0,
    };
    const file = join(work, 'sse.html');
    writeFileSync(file, renderHtml(results));
    const dom = await browse(file, ['--dump-dom']);
    expect(dom).toMatch(/data-ready="1"/);
    expect(dom).toMatch(/<title>MCP conformance: PASS with notes/);
    expect(dom).not.toContain('pwned</title>');
    expect(dom).not.toMatch(/<img/);
    expect(dom.match(/<script/g)).toHaveLength(1);
    const sse = /<table class="sse">[\s\S]*?<\/table>/.exec(dom)?.[0] ?? '';
    expect(sse).toMatch(/<td class="num">5\.1 ms<\/td><td>message<\/td>/);
    expect(sse).toMatch(/<td class="num">5\.2 ms<\/td><td>message<\/td><td>e2<\/td>/);
    expect(sse).toContain('"params":{"progress":1}');
    expect(dom).toContain('Below MUST: fails the run only with --strict.');
  }, 60_000);
});
