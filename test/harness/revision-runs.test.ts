import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunState } from '../../src/engine/run-state.js';
import { startReferenceServer, type Middleware, type ReferenceServer } from '../../service/reference-server/app.js';
import { isMcp, readRequestBody, tryParse, withBody } from '../../service/mutants/intercept.js';
import { detectRevisions } from '../../src/targets/detect-revisions.js';
import { CONFORMANCE_CONFIG } from '../../service/reference-server/conformance-config.js';
import type { TargetInfo } from '../../src/targets/target-info.js';
import { bootstrap } from '../helpers/reference.js';
import { expectValid } from '../helpers/results-schema.js';
import { runCli } from './run-cli.js';

const ONLY = '2025-06-18';

/**
 * A faithful server that speaks one revision and requires its header. MCP allows it: "If the server receives
 * a request with an invalid or unsupported `MCP-Protocol-Version`, it MUST respond with `400 Bad Request`",
 * and without the header it "SHOULD assume protocol version 2025-03-26", which this server does not support.
 * Only `initialize` asking for 2025-06-18 passes without the header (the header follows negotiation).
 */
function requireHeader(refused: string[]): Middleware {
  return (_service, next) => async (req, res) => {
    if (!isMcp(req) || req.method !== 'POST') return next(req, res);
    const body = await readRequestBody(req);
    const message = tryParse(body);
    const initialize = message?.method === 'initialize' && message?.params?.protocolVersion === ONLY;
    const version = req.headers['mcp-protocol-version'];
    if (version !== ONLY && !initialize) {
      refused.push(`${typeof message?.method === 'string' ? message.method : 'no method'} with MCP-Protocol-Version ${version ?? '(none)'}`);
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message?.id ?? null, error: { code: -32600, message: `Bad Request: this server speaks MCP-Protocol-Version ${ONLY} only` } }));
      return;
    }
    return next(withBody(req, body), res);
  };
}

describe('a one-revision server that requires its MCP-Protocol-Version header', () => {
  let server: ReferenceServer;
  const refused: string[] = [];
  beforeAll(async () => {
    server = await startReferenceServer(CONFORMANCE_CONFIG, { middleware: requireHeader(refused) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is detected as speaking exactly that revision (the initialize probe sends the header it asks for)', async () => {
    const { apiKey } = await bootstrap(server);
    const info = { mcpUrl: server.mcpUrl, headers: {}, apiKey, timeoutMs: 5000, protocol: 'auto' } as unknown as TargetInfo;
    expect(await detectRevisions(new RunState(), info)).toEqual([ONLY]);
  });

  it(`runs clean with --protocol ${ONLY}: every request carries the header`, async () => {
    refused.length = 0;
    const run = await runCli(['--target', 'url', '--base-url', server.baseUrl, '--profile', 'reference', '--protocol', ONLY, '--only', 'tools,jsonrpc,stream', '--seed', '3'], 170_000);
    expect(run.results, run.stderr).toBeDefined();
    const r = run.results!;
    const failing = r.requirements.filter((x) => x.status === 'fail')
      .map((x) => `${x.id}: ${x.checks.filter((c) => c.status === 'fail').map((c) => `${c.name}: ${c.message}`).join(' | ')}`);
    expect(failing).toEqual([]);
    expect(run.code).toBe(0);
    // The checks spoke the revision under test; the only refusals are requests sent without it on purpose.
    // (The run-wide records, judged from every reply of the run once it is over, speak no revision of their own.)
    const checks = r.requirements.flatMap((x) => x.checks).filter((c) => c.status !== 'not-testable' && !/src\/(wire\/server-errors|key-echoes)\.ts/.test(c.suite ?? ''));
    expect(checks.length).toBeGreaterThan(10);
    expect(checks.every((c) => c.revision === ONLY)).toBe(true);
    expect(refused.filter((line) => !/MCP-Protocol-Version (\(none\)|1999-01-01|not-a-version|2025-13-45|2025-03-26|text)/.test(line))).toEqual([]);
  }, 180_000);
});

describe('--protocol auto on the reference', () => {
  it('runs each revision-dependent row once per revision spoken, and reports the matrix', async () => {
    const run = await runCli(['--only', 'jsonrpc-protocol-version,tools-name-format,jsonrpc-batch', '--seed', '2'], 170_000);
    expect(run.results, run.stderr).toBeDefined();
    const r = run.results!;
    expect(run.code).toBe(0);
    expectValid(r);
    const revisionsOf = (id: string) => r.requirements.find((x) => x.id === id)!.checks.map((c) => c.revision).sort();
    expect(revisionsOf('jsonrpc-protocol-version-supported')).toEqual(['2025-03-26', '2025-06-18', '2025-11-25']);
    expect(revisionsOf('jsonrpc-protocol-version-unsupported-400')).toEqual(['2025-06-18', '2025-11-25']);
    expect(revisionsOf('tools-name-format')).toEqual(['2025-11-25', '2026-07-28']);
    const spoken = new Set(r.requirements.filter((x) => x.revisions).flatMap((x) => x.checks.map((c) => c.revision)));
    expect([...spoken].sort()).toEqual(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    // Each run spoke its own revision on the wire: 2026-07-28 with the envelope and the standard headers.
    const modern = r.requirements.find((x) => x.id === 'tools-name-format')!.checks.find((c) => c.revision === '2026-07-28')!;
    const sent = modern.wire.filter((x) => x.request.method === 'POST');
    expect(sent.length).toBeGreaterThan(0);
    for (const x of sent) {
      expect(x.request.headers).toMatchObject({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
      expect(JSON.parse(x.request.body!).params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    }
    const legacy = r.requirements.find((x) => x.id === 'tools-name-format')!.checks.find((c) => c.revision === '2025-11-25')!;
    expect(legacy.wire.every((x) => x.request.headers['mcp-protocol-version'] === '2025-11-25')).toBe(true);
    // Reports: the matrix revision x row, and JUnit test cases named with the revision.
    const summary = readFileSync(join(run.reportDir, 'summary.md'), 'utf8');
    expect(summary).toContain('### By protocol revision');
    expect(summary).toMatch(/\| `jsonrpc-batch-2025-03-26` \| pass \| — \| — \| — \|/);
    expect(summary).toMatch(/\| `tools-name-format` \| — \| — \| pass \| pass \|/);
    const junit = readFileSync(join(run.reportDir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/classname="tools\.tools-name-format" name="[^"]* \[2026-07-28\]"/);
    const html = readFileSync(join(run.reportDir, 'report.html'), 'utf8');
    expect(html).toContain('<section id="revisions">');
  }, 180_000);
});
