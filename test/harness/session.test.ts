import { afterEach, describe, expect, it } from 'vitest';
import { RunState } from '../../src/engine/run-state.js';
import { sessionMutants } from '../../service/mutants/session.js';
import { isMcp } from '../../service/mutants/intercept.js';
import { CATALOG } from '../../src/catalog/index.js';
import { McpSession } from '../../src/mcp/mcp-session.js';
import { loadProfile } from '../../src/profile/profile.js';
import { ROOT } from '../../src/engine/run.js';
import type { TargetInfo } from '../../src/targets/target-info.js';
import { openRunSession } from '../../src/targets/session-lifecycle.js';
import { WireClient } from '../../src/wire/client.js';
import { startReferenceServer, type Middleware, type ReferenceServer } from '../../service/reference-server/app.js';
import { bootstrap } from '../helpers/reference.js';
import { ConformanceRuns } from '../../scripts/conformance-runs.js';
import { totalsLine } from '../../src/reports/console-text.js';
import { expectValid } from '../helpers/results-schema.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SESSION_ROWS = CATALOG.filter((r) => r.group === 'session').map((r) => r.id).sort();

interface Seen { method: string; body: string; sessionId?: string; protocolVersion?: string }

/** The reference behind `middleware`, every MCP request it receives recorded. */
async function startRecorded(middleware?: Middleware): Promise<{ server: ReferenceServer; seen: Seen[] }> {
  const seen: Seen[] = [];
  const record: Middleware = (service, next) => {
    const inner = middleware ? middleware(service, next) : next;
    return async (req, res) => {
      if (isMcp(req)) {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: req.method ?? '', body, sessionId: req.headers['mcp-session-id'] as string | undefined, protocolVersion: req.headers['mcp-protocol-version'] as string | undefined });
        const { Readable } = await import('node:stream');
        const replay = Object.assign(Readable.from([Buffer.from(body)]), { method: req.method, url: req.url, headers: req.headers, socket: req.socket, httpVersion: req.httpVersion });
        return inner(replay as unknown as typeof req, res);
      }
      return inner(req, res);
    };
  };
  const server = await startReferenceServer({ port: 0, host: '127.0.0.1' }, { middleware: record });
  return { server, seen };
}

/** A url target on `server` with a key of its own (the service answers nothing without one). */
async function info(server: ReferenceServer): Promise<TargetInfo> {
  const { apiKey } = await bootstrap(server);
  return {
    kind: 'url', baseUrl: server.baseUrl, mcpUrl: server.mcpUrl, headers: {}, apiKey, canBootstrap: false,
    profile: loadProfile('generic', ROOT), revisions: ['2025-06-18', '2025-11-25'],
  };
}

const stateful = sessionMutants.find((m) => m.name === 'stateful-sessions')!;

describe('the run\'s session (src/targets/session-lifecycle.ts)', () => {
  let server: ReferenceServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a stateless server sees one initialize and nothing else; the run holds no session', async () => {
    const started = await startRecorded();
    server = started.server;
    const target = await info(server);
    const session = await openRunSession(new RunState(), target);
    await session.close();
    expect(session.sessionId).toBeUndefined();
    // The initialize was answered (a key of its own), without a session id.
    expect(started.seen.map((s) => `${s.method} ${JSON.parse(s.body).method}`)).toEqual(['POST initialize']);
    expect(new McpSession(new WireClient([], () => [], { timeoutMs: 5000, run: new RunState() }), target).headers()['mcp-session-id']).toBeUndefined();
  });

  it('a stateful server: initialize, notifications/initialized in the session, the id on every request, DELETE at the end', async () => {
    const started = await startRecorded(stateful.middleware);
    server = started.server;
    const prepared = await info(server);
    const session = await openRunSession(new RunState(), prepared);
    const id = session.sessionId;
    expect(id).toMatch(/^[\x21-\x7E]+$/);
    // The run adds the session to what it knows of the target; every later request carries it.
    const target: TargetInfo = { ...prepared, sessionId: id };
    expect(started.seen.map((s) => [s.method, s.body && JSON.parse(s.body).method, s.sessionId, s.protocolVersion])).toEqual([
      ['POST', 'initialize', undefined, undefined],
      ['POST', 'notifications/initialized', id, '2025-11-25'],
    ]);
    const mcp = new McpSession(new WireClient([], () => [], { timeoutMs: 5000, run: new RunState() }), target);
    expect(mcp.headers()['mcp-session-id']).toBe(id);
    expect((await mcp.request('tools/list')).status).toBe(200);
    await session.close();
    expect(started.seen.at(-1)).toMatchObject({ method: 'DELETE', sessionId: id });
    // Ended: the server now answers the id with 404.
    expect((await mcp.request('tools/list')).status).toBe(404);
  });
});

describe.concurrent('the session rows', () => {
  // Six runs whose results are what matters: through the conformance pool (the command's verdict and
  // results, conformance-pool.test), without starting node and the harness six times.
  const pool = new ConformanceRuns(2);
  const runCli = (args: string[]) => pool.run(args);

  it('pass on a faithful stateful server', async () => {
    const run = await runCli(['--mutant', 'stateful-sessions', '--only', 'session', '--seed', '1']);
    expect(run.results, run.stderr).toBeDefined();
    const rows = run.results!.requirements.map((r) => [r.id, r.status, r.checks.filter((c) => c.status !== 'pass').map((c) => c.message ?? c.reason)]);
    expect(rows.sort()).toEqual(SESSION_ROWS.map((id) => [id, 'pass', []]));
  }, 120_000);

  it('are not applicable on the service, which keeps no session state', async () => {
    const run = await runCli(['--only', 'session', '--seed', '1']);
    expect(run.results, run.stderr).toBeDefined();
    for (const r of run.results!.requirements) {
      // A status of its own (issue 36): a consumer counting statuses must find what the totals say.
      expect(r.status, r.id).toBe('not-applicable');
      for (const c of r.checks) expect(c.reason, r.id).toMatch(/^not applicable: the server keeps no session state/);
    }
    expect(run.results!.totals).toMatchObject({ notApplicable: SESSION_ROWS.length, notTestable: 0 });
    expect(run.code).toBe(0);
    expectValid(run.results);
    // JUnit: each check a skipped case saying "not applicable: <reason>", never "not testable".
    const junit = readFileSync(join(run.reportDir, 'junit.xml'), 'utf8');
    const skipped = [...junit.matchAll(/<skipped message="([^"]*)"/g)].map((m) => m[1]!);
    expect(skipped.length).toBeGreaterThan(0);
    for (const m of skipped) expect(m).toMatch(/^not applicable: the server keeps no session state/);
    // summary.md: counted as not applicable, none as not testable; the revision table shows them as "—", not "n/t".
    const summary = readFileSync(join(run.reportDir, 'summary.md'), 'utf8');
    expect(summary).toContain(`| not applicable | ${SESSION_ROWS.length} |`);
    expect(summary).toContain('| not testable | 0 |');
    const byRevision = summary.split('### By protocol revision')[1]!.split('\n\n')[2]!.split('\n').filter((l) => SESSION_ROWS.some((id) => l.startsWith(`| \`${id}\` |`)));
    expect(byRevision.length).toBeGreaterThan(0);
    for (const line of byRevision) expect(line).toMatch(/^\| `[a-z0-9-]+` \|( — \|)+$/);
    for (const id of SESSION_ROWS) expect(summary).toMatch(new RegExp(`\\| \`${id}\` \\| session \\| \\w+ \\| not applicable \\|`));
    // The console's totals line.
    expect(totalsLine(run.results!)).toMatch(new RegExp(`, 0 not testable, ${SESSION_ROWS.length} not applicable,`));
    // --strict never fails a not applicable row.
    const strict = await runCli(['--only', 'session', '--seed', '1', '--strict']);
    expect(strict.code, strict.results?.verdict).toBe(0);
  }, 240_000);

  // Each fault breaks one rule of a stateful server (service/mutants/session.ts): that row must fail (MUST) or warn (SHOULD).
  it.each(sessionMutants.filter((m) => m !== stateful).map((m) => [m.name, m] as const))('catch %s', async (_name, m) => {
    const run = await runCli(['--mutant', m.name, '--only', m.violates.join(','), '--seed', '1']);
    expect(run.results, run.stderr).toBeDefined();
    const caught = run.results!.requirements.filter((r) => m.violates.includes(r.id) && (r.status === 'fail' || r.status === 'warn'));
    expect(caught.map((r) => r.id), m.description).toEqual(m.violates);
  }, 120_000);
});
