import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/index.js';
import type { Results } from '../../src/engine/results.js';
import { startThirdParty, type RunningServer, type ThirdPartyServer } from '../helpers/third-party.js';
import { runCli } from './run-cli.js';
import { genericRows } from '../../src/engine/check.js';
import { CHECKS } from '../../suites/index.js';

/** The rows the generic profile judges, read off the checks. */
const GENERIC_ROWS = genericRows(CHECKS);

/**
 * Servers built only from the official SDKs' documented patterns (fixtures/third-party/), judged by the generic
 * profile. Every row they fail or warn on must be a genuine deviation of that SDK, listed with the sentence it
 * breaks, the wire evidence and the reason in fixtures/third-party/deviations/; anything else is the harness's
 * fault, to fix and not to list. Two seeds must give the same verdicts.
 */

interface Deviation { id: string; status: 'fail' | 'warn'; sentence: string; evidence: string; reason: string }

const TARGETS: [ThirdPartyServer, 'stateful' | 'stateless'][] = [
  ['ts-v1', 'stateful'], ['ts-v1', 'stateless'], ['python', 'stateful'], ['python', 'stateless'], ['go', 'stateful'], ['go', 'stateless'],
];
const fileOf = (server: ThirdPartyServer, mode: string) => `fixtures/third-party/deviations/${server}-${mode}.json`;
const deviationsOf = (server: ThirdPartyServer, mode: string) => JSON.parse(readFileSync(fileOf(server, mode), 'utf8')) as Deviation[];
/** Calls notes_add once through the TypeScript SDK's client: its reply counts every note the server holds. */
async function addNote(url: string): Promise<string> {
  const client = new Client({ name: 'third-party-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await client.callTool({ name: 'notes_add', arguments: { note: 'from the test' } });
    return (result.content as { text?: string }[])[0]?.text ?? '';
  } finally {
    await client.close();
  }
}

const deviating = (r: Results | undefined) => (r?.requirements ?? []).filter((x) => x.status === 'fail' || x.status === 'warn').map((x) => `${x.id} (${x.status})`).sort();

describe('the deviation lists', () => {
  it('name generic rows, each once, with the verdict its level gives, the sentence broken, the evidence and a reason', () => {
    for (const [server, mode] of TARGETS) {
      const list = deviationsOf(server, mode);
      expect(new Set(list.map((e) => e.id)).size, fileOf(server, mode)).toBe(list.length);
      for (const e of list) {
        const row = CATALOG.find((r) => r.id === e.id);
        expect(row, `${e.id} is a catalog row`).toBeDefined();
        expect(GENERIC_ROWS.has(e.id), `${e.id} runs under the generic profile`).toBe(true);
        expect(e.status, `${fileOf(server, mode)}: ${e.id}`).toBe(row!.level === 'MUST' ? 'fail' : 'warn');
        for (const field of ['sentence', 'evidence', 'reason'] as const) expect(e[field].length, `${e.id}: ${field}`).toBeGreaterThan(40);
      }
    }
  });
});

for (const [server, mode] of TARGETS) {
  describe(`the ${server} SDK server, ${mode}, generic profile`, () => {
    let running: RunningServer;
    beforeAll(async () => {
      running = await startThirdParty(server, mode);
    }, 60_000);
    afterAll(async () => {
      await running?.stop();
    });

    it('fails or warns on exactly its listed deviations, with two seeds alike', async () => {
      const args = (seed: number) => ['--target', 'url', '--mcp-url', running.url, '--profile', 'generic', '--seed', String(seed), '--baseline', fileOf(server, mode)];
      const runs = await Promise.all([runCli(args(1), 120_000), runCli(args(2), 120_000)]);
      const listed = deviationsOf(server, mode).map((e) => `${e.id} (${e.status})`).sort();
      for (const run of runs) {
        expect(run.results, run.stderr).toBeDefined();
        const detail = run.results!.requirements.filter((x) => x.status === 'fail' || x.status === 'warn')
          .map((x) => `${x.id} (${x.status}): ${x.checks.filter((c) => c.status === 'fail').map((c) => c.message).join(' | ')}`).join('\n');
        expect(deviating(run.results), detail).toEqual(listed);
        // Every deviation is listed and none is stale: the run conforms to its baseline.
        expect(run.code, run.stdout + run.stderr).toBe(0);
      }
      // notes_add changes the server (no readOnlyHint, not in the generic profile): a deployment's tool the runs never call.
      expect(await addNote(running.url)).toBe('1 notes');
    }, 150_000);
  });
}
