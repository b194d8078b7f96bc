import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunState } from '../../src/engine/run-state.js';
import { DEFAULT_SETTINGS } from '../../src/engine/run-settings.js';
import { planCheck, runCheck } from '../../src/engine/check.js';
import { CHECKS } from '../../suites/index.js';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { inNewScope } from '../../src/kit/run-scope.js';
import { loadProfile } from '../../src/profile/profile.js';
import { prepareEmbedded } from '../../src/targets/embedded.js';
import type { PreparedTarget } from '../../src/targets/target.js';
import type { TargetInfo } from '../../src/targets/target-info.js';
import type { CheckRecord } from '../../src/engine/verdict.js';

/**
 * "What the harness's own machine causes is never the service's fault" (issue 33). The in-process SDK check
 * (suites/interop.suite.ts) against a healthy reference server, through a forwarder in this process that can
 * stall this process's event loop (a synchronous busy-wait, as a starved or busy harness does) while the
 * SDK's initialize is outstanding: the SDK's timeout fires on a reply that waited unread, and the row must be
 * not testable with the account, never a failure. A service that leaves initialize unanswered still fails.
 * No timing here depends on the machine's speed: the stall is twice the SDK's deadline, and a hang is a hang.
 */

const SDK_TIMEOUT_MS = 3_000;
const STALL_MS = 2 * SDK_TIMEOUT_MS;

type Behaviour = 'forward' | 'stall' | 'never-answer';

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('the in-process SDK check on a harness whose event loop stalls', () => {
  let prepared: PreparedTarget;
  let forwarder: Server;
  let behaviour: Behaviour = 'forward';
  let via: string;
  beforeAll(async () => {
    prepared = await prepareEmbedded(new RunState({ ...DEFAULT_SETTINGS, timeoutMs: SDK_TIMEOUT_MS }), { headers: {}, profile: loadProfile('reference', PACKAGE_ROOT) });
    forwarder = createServer((req, res) => {
      void (async () => {
        // The SDK's listening stream is not needed here: refused, as the protocol allows.
        if (req.method !== 'POST') return void res.writeHead(405).end();
        const body = await bodyOf(req);
        if (body.includes('"initialize"')) {
          if (behaviour === 'never-answer') return; // the request stays open until the client gives up
          if (behaviour === 'stall') {
            const end = performance.now() + STALL_MS;
            while (performance.now() < end) {
              // busy: nothing else on this event loop runs, the SDK's reply included
            }
          }
        }
        const headers: Record<string, string> = {};
        for (const name of ['authorization', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id']) {
          const value = req.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const up = await fetch(prepared.info.mcpUrl, { method: 'POST', headers, body });
        const passed = [...up.headers].filter(([k]) => !['transfer-encoding', 'connection', 'content-length', 'content-encoding', 'keep-alive'].includes(k));
        res.writeHead(up.status, Object.fromEntries(passed));
        res.end(Buffer.from(await up.arrayBuffer()));
      })().catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
    const url = new URL(prepared.info.mcpUrl);
    via = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}${url.pathname}`;
  }, 60_000);
  afterAll(async () => {
    forwarder?.closeAllConnections();
    await new Promise<void>((resolve) => (forwarder ? forwarder.close(() => resolve()) : resolve()));
    await prepared?.close();
  });

  const runConnect = (timeoutMs: number): Promise<CheckRecord> => inNewScope(async () => {
    const def = CHECKS.find((d) => d.requirementIds.includes('interop-sdk-legacy-connect'))!;
    // The reference speaks 2025-11-25 (a run detects it; the check runs once per legacy revision spoken).
    const target: TargetInfo = { ...prepared.info, mcpUrl: via, revisions: ['2025-11-25'] };
    const run = new RunState({ ...DEFAULT_SETTINGS, timeoutMs });
    const [planned] = planCheck(def, target, run.settings, ['interop-sdk-legacy-connect']);
    return runCheck(planned!, target, run);
  });

  it('passes through the forwarder when nothing stalls (the forwarder is transparent)', async () => {
    behaviour = 'forward';
    const record = await runConnect(20_000);
    expect(record.status, `${record.message ?? ''} ${record.reason ?? ''}`).toBe('pass');
  }, 60_000);

  it('a stall longer than the SDK\'s timeout during its connect is not testable with the account, not a failure', async () => {
    behaviour = 'stall';
    const record = await runConnect(SDK_TIMEOUT_MS);
    expect(record.status, `${record.message ?? ''} ${record.reason ?? ''}`).toBe('not-testable');
    expect(record.reason).toMatch(/event loop stalled for \d+\.\d s/);
    expect(record.reason).toContain('not to the service');
  }, 60_000);

  it('a service that leaves initialize unanswered past the SDK\'s timeout still fails', async () => {
    behaviour = 'never-answer';
    const record = await runConnect(SDK_TIMEOUT_MS);
    expect(record.status, `${record.message ?? ''} ${record.reason ?? ''}`).toBe('fail');
    expect(record.message).toMatch(/could not connect: .*timed out/);
  }, 60_000);
});
