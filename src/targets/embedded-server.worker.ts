import { parentPort } from 'node:worker_threads';
import { startReferenceServer } from '../../service/reference-server/app.js';
import { CONFORMANCE_CONFIG } from '../../service/reference-server/conformance-config.js';
import { startMailSink } from '../../service/smtp-sink/mail-sink.js';
import { startAdminChannel } from './admin-channel.js';
import type { ToServerThread, FromServerThread } from './embedded-thread.js';

/**
 * The thread that serves the embedded target's reference servers (src/targets/embedded-thread.ts starts it,
 * one per process): the service never shares an event loop with the harness that judges it, so a burst or
 * a stream's timing is the service's, not the harness's. Its modules load once, when the thread starts; each
 * run then asks for a server of its own (a fresh store, the harness's own mail sink beside it, a mutant or
 * none) and closes it when done.
 */
const port = parentPort!;
const running = new Map<number, () => Promise<void>>();

async function start(id: number, mutant: string | undefined): Promise<FromServerThread> {
  const m = mutant ? (await import('../../service/mutants/index.js')).mutant(mutant) : undefined;
  // The human's mailbox: the harness's own SMTP sink, beside the server (the harness reads it over HTTP).
  const sink = await startMailSink();
  try {
    const server = await startReferenceServer({ ...CONFORMANCE_CONFIG, mail: { smtpUrl: `smtp://127.0.0.1:${sink.smtpPort}` }, ...m?.config }, { middleware: m?.middleware });
    const admin = await startAdminChannel(server.store, server.config);
    running.set(id, async () => {
      await admin.close();
      await server.close();
      await sink.close();
    });
    return { id, baseUrl: server.baseUrl, mcpUrl: server.mcpUrl, mailboxUrl: sink.messagesUrl, admin: { url: admin.url, token: admin.token } };
  } catch (err) {
    await sink.close();
    throw err;
  }
}

port.on('message', async (message: ToServerThread) => {
  if (message.type === 'start') {
    port.postMessage(await start(message.id, message.mutant).catch((err: unknown): FromServerThread => ({ id: message.id, error: err instanceof Error ? err.message : String(err) })));
    return;
  }
  const close = running.get(message.id);
  running.delete(message.id);
  await close?.().catch(() => undefined);
  port.postMessage({ id: message.id, closed: true } satisfies FromServerThread);
});
