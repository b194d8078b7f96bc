/**
 * Child process of the load commands' embedded target: the reference server on 127.0.0.1 (free port) in a
 * process of its own, so the load generator never shares an event loop with the server it measures.
 *
 *   node dist/load/reference-child.js [--config '<json overrides>'] [--mutant <name>]
 *
 * It also offers the loopback admin channel (workspaces on a chosen plan, sibling keys, revocation),
 * whose URL and token go to the parent over IPC, never to stdout.
 */
import { parseArgs } from 'node:util';
import { startReferenceServer } from '../service/reference-server/app.js';
import type { ConfigOverrides } from '../service/reference-server/config.js';
import { mutant as findMutant } from '../service/mutants/index.js';
import { startAdminChannel } from '../src/targets/admin-channel.js';
import { runChild } from '../src/kit/child-runtime.js';

const { values } = parseArgs({ options: { config: { type: 'string' }, mutant: { type: 'string' } }, strict: true, allowPositionals: false });

runChild('reference server (load target)', {
  needsReply: false,
  async start() {
    const overrides = JSON.parse(values.config ?? '{}') as ConfigOverrides;
    const m = values.mutant ? findMutant(values.mutant) : undefined;
    const server = await startReferenceServer({ ...overrides, ...m?.config, host: '127.0.0.1', port: 0 }, { middleware: m?.middleware });
    const admin = await startAdminChannel(server.store, server.config);
    return {
      url: server.baseUrl,
      admin: { url: admin.url, token: admin.token },
      async close() {
        await admin.close();
        await server.close();
      },
    };
  },
});
