import { parentPort } from 'node:worker_threads';
import { startReferenceServer } from '../../fixtures/reference-server/app.js';
import { CONFORMANCE_CONFIG } from '../../fixtures/reference-server/conformance-config.js';
import { startMailSink } from '../../fixtures/smtp-sink/mail-sink.js';
import { startAdminChannel } from './admin-channel.js';
import type { EmbeddedServerData, EmbeddedServerReady } from './embedded-thread.js';

/**
 * The embedded target's reference server, in a thread of its own (src/targets/embedded-thread.ts starts it):
 * the service never shares an event loop with the harness that judges it, so a burst or a stream's timing is
 * the service's, not the harness's. Its modules load as soon as the thread starts; the server starts when
 * told how (a mutant or none), with the harness's own mail sink beside it, answers once with its addresses
 * (or why it could not start),
 * and closes when told.
 */
const port = parentPort!;

port.once('message', async ({ mutant }: EmbeddedServerData) => {
  try {
    const m = mutant ? (await import('../../fixtures/mutants/index.js')).mutant(mutant) : undefined;
    // The human's mailbox: the harness's own SMTP sink, beside the server (the harness reads it over HTTP).
    const sink = await startMailSink();
    const server = await startReferenceServer({ ...CONFORMANCE_CONFIG, mail: { smtpUrl: `smtp://127.0.0.1:${sink.smtpPort}` }, ...m?.config }, { middleware: m?.middleware });
    const admin = await startAdminChannel(server.store, server.config);
    port.once('message', async () => {
      await admin.close();
      await server.close();
      await sink.close();
      port.close();
    });
    port.postMessage({ baseUrl: server.baseUrl, mcpUrl: server.mcpUrl, mailboxUrl: sink.messagesUrl, admin: { url: admin.url, token: admin.token } } satisfies EmbeddedServerReady);
  } catch (err) {
    port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies EmbeddedServerReady);
    port.close();
  }
});
