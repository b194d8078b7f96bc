import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STDIO_BROKEN_PROXY, STDIO_CLIENT_FAULTS } from '../../service/mutants/stdio.js';
import { runConformanceChild } from '../../scripts/conformance-runs.js';
import { CLIENT_IDS, CLIENTS } from '../../src/interop/clients.js';
import { program } from '../../src/kit/package-root.js';

/**
 * The interop matrix as a user meets it: every client against the reference passes and shows in the reports'
 * client x step matrix; a machine without a client's runtime gets not testable with the install command (never a
 * pass); --clients selects and rejects.
 */
describe.concurrent('interop matrix', () => {
  it('every client passes every step against the reference, and the reports show the matrix', async () => {
    const run = await runConformanceChild(['--only', 'interop-', '--seed', '3'], 180_000);
    const failing = (run.results?.requirements ?? []).filter((r) => r.status === 'fail').map((r) => `${r.id}: ${r.checks.find((c) => c.status === 'fail')?.message ?? ''}`);
    expect(run.code, `${run.stderr}\n${failing.join('\n')}`).toBe(0);
    const rows = run.results!.requirements.filter((r) => /^interop-(ts-v1|ts-v2|python|go)-/.test(r.id));
    expect(rows).toHaveLength(CLIENT_IDS.length * 5);
    expect(rows.filter((r) => r.status !== 'pass').map((r) => `${r.id}: ${r.status} ${r.checks[0]?.message ?? r.checks[0]?.reason ?? ''}`)).toEqual([]);
    // Each connect check names the client and the revision it negotiated.
    for (const id of CLIENT_IDS) {
      const tag = rows.find((r) => r.id === `interop-${id}-connect`)!.checks[0]!.interop!;
      expect(tag).toMatchObject({ client: id, sdk: CLIENTS[id].sdk, mode: 'http' });
      expect(tag.revision).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    // Each row carries the wire log of its client's exchange (through the recording proxy), keys redacted.
    const wire = rows.find((r) => r.id === 'interop-python-streaming')!.checks[0]!.wire;
    expect(wire.some((x) => x.response?.events?.some((e) => e.data.includes('notifications/progress')))).toBe(true);
    expect(JSON.stringify(wire)).not.toMatch(/_live_[A-Za-z0-9_-]{16,}/);
    const summary = readFileSync(join(run.reportDir, 'summary.md'), 'utf8');
    expect(summary).toContain('### SDK clients (4)');
    expect(summary).toMatch(/\| github\.com\/modelcontextprotocol\/go-sdk v1\.8\.0 \(Go SDK\) \| 2026-07-28 \| pass \| pass \| pass \| pass \| pass \|/);
    expect(readFileSync(join(run.reportDir, 'report.html'), 'utf8')).toContain('<h2>SDK clients (4)</h2>');
    // What the deployment paid is said: the matrix's requests are in the run's count.
    expect(run.results!.consumption!.requests).toBeGreaterThan(50);
  }, 200_000);

  it('a client whose runtime is missing is not testable, with the command that installs it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-interop-tools-'));
    const run = await runConformanceChild(['--only', 'interop-python-connect,interop-go-connect', '--clients', 'python,go', '--seed', '3'], 120_000, undefined, { MCP_INTEROP_TOOLS: empty });
    expect(run.code, run.stderr).toBe(0);
    for (const id of ['interop-python-connect', 'interop-go-connect']) {
      const row = run.results!.requirements.find((r) => r.id === id)!;
      expect(row.status).toBe('not-testable');
      expect(row.checks[0]!.reason).toContain('install it with `bash scripts/setup-interop.sh`');
    }
    expect(readFileSync(join(run.reportDir, 'summary.md'), 'utf8')).toContain('interop-go-connect');
    // --strict fails a run whose MUSTs were all not testable.
    const strict = await runConformanceChild(['--only', 'interop-go-connect', '--clients', 'go', '--strict', '--seed', '3'], 120_000, undefined, { MCP_INTEROP_TOOLS: empty });
    expect(strict.code, strict.stderr).toBe(1);
  }, 200_000);

  // Broken stdio proxies (service/mutants/stdio-broken/proxy.ts) that only some SDKs' stdio clients trip on
  // (STDIO_CLIENT_FAULTS): each fault fails exactly the stdio rows it declares, and the others read through it.
  it.each(STDIO_CLIENT_FAULTS.map((f) => [f.fault, f.violates] as const))('a stdio proxy with the fault "%s" fails %j only', async (fault, violates) => {
    const run = await runConformanceChild(['--target', 'stdio', '--only', 'interop-', '--seed', '3', '--stdio-command', `node ${program(STDIO_BROKEN_PROXY)} --fault ${fault}`], 180_000);
    const failing = run.results!.requirements.filter((r) => r.status === 'fail').map((r) => r.id).sort();
    expect(failing, run.stderr.slice(-2000)).toEqual([...violates].sort());
    expect(run.code).toBe(1);
  }, 200_000);

  it('--clients rejects an unknown client and an empty selection (exit 2)', async () => {
    const unknown = await runConformanceChild(['--clients', 'ts-v3'], 60_000);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown client "ts-v3"');
    const none = await runConformanceChild(['--clients', 'go', '--only', 'interop-ts-v1'], 60_000);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/selects no requirement/);
  }, 120_000);
});
