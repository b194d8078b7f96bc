import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/index.js';
import { startEverything, type EverythingServer } from '../helpers/server-everything.js';
import { runCli } from './run-cli.js';
import { genericRows } from '../../src/engine/check.js';
import { CHECKS } from '../../suites/index.js';

/** The rows the generic profile judges, read off the checks. */
const GENERIC_ROWS = genericRows(CHECKS);

/**
 * `@modelcontextprotocol/server-everything` (pinned in package.json) is the most common kind of MCP server: stateful
 * Streamable HTTP, the official SDK underneath. Under the generic profile every row it fails or warns on must be a
 * genuine deviation of that server, listed with the reason in docs/examples/server-everything-baseline.json; anything
 * else is a harness bug to fix, not to baseline.
 */
const BASELINE_FILE = 'docs/examples/server-everything-baseline.json';

interface BaselineEntry { id: string; status: 'fail' | 'warn'; reason: string }

const baseline = JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as BaselineEntry[];
const SESSION_ROWS = CATALOG.filter((r) => r.group === 'session').map((r) => r.id);

describe('the server-everything baseline', () => {
  it('names known generic rows, each once, with the verdict its level gives and a reason', () => {
    expect(new Set(baseline.map((e) => e.id)).size).toBe(baseline.length);
    for (const e of baseline) {
      const row = CATALOG.find((r) => r.id === e.id);
      expect(row, `${e.id} is a catalog row`).toBeDefined();
      expect(GENERIC_ROWS.has(e.id), `${e.id} runs under the generic profile`).toBe(true);
      // A failing MUST fails; a failing SHOULD warns.
      expect(e.status, e.id).toBe(row!.level === 'MUST' ? 'fail' : 'warn');
      expect(e.reason.length, `${e.id} says why it is the server's deviation`).toBeGreaterThan(80);
    }
  });
});

describe('server-everything in streamableHttp mode, generic profile', () => {
  let server: EverythingServer;
  beforeAll(async () => {
    server = await startEverything();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('fails or warns on exactly the rows of its baseline, and the run opens and ends a session', async () => {
    const run = await runCli(['--target', 'url', '--mcp-url', server.url, '--profile', 'generic', '--seed', '1', '--baseline', BASELINE_FILE], 240_000);
    expect(run.results, run.stderr).toBeDefined();
    const r = run.results!;
    const deviating = r.requirements.filter((x) => x.status === 'fail' || x.status === 'warn');
    const detail = deviating.map((x) => `${x.id} (${x.status}): ${x.checks.filter((c) => c.status === 'fail').map((c) => c.message).join(' | ')}`).join('\n');
    expect(deviating.map((x) => `${x.id} (${x.status})`).sort(), detail).toEqual(baseline.map((e) => `${e.id} (${e.status})`).sort());
    // Every deviation is in the baseline and none is stale.
    expect(run.code, run.stdout + run.stderr).toBe(0);

    // The session lifecycle ran: no check outside the session rows met a missing or unknown session.
    const sessionless = r.requirements.filter((x) => !SESSION_ROWS.includes(x.id))
      .flatMap((x) => x.checks.filter((c) => /not initialized|No valid session ID|Session not found/i.test(`${c.message ?? ''} ${JSON.stringify(c.actual ?? '')}`)).map((c) => `${x.id}: ${c.message}`));
    expect(sessionless).toEqual([]);
    // The server keeps sessions: the session rows ran, not "not applicable".
    const status = Object.fromEntries(r.requirements.map((x) => [x.id, x.status]));
    for (const id of ['session-id-visible-ascii', 'session-new-after-404', 'session-delete-ends']) expect(status[id], id).toBe('pass');
    // It logs each session it ends: the run's own one, and the session rows' (each opens one or two per revision).
    expect(server.sessionsEnded(), server.output()).toBeGreaterThan(0);
  }, 300_000);
});
