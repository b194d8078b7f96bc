import { Worker } from 'node:worker_threads';
import { program } from '../kit/package-root.js';

/** How the embedded server starts: a deliberately broken variant to start instead of the reference, or none. */
export interface EmbeddedServerData { mutant?: string }
/** The server's addresses, its mailbox's (the harness's SMTP sink, read over HTTP) and its admin channel's. */
export type EmbeddedServerReady =
  | { baseUrl: string; mcpUrl: string; mailboxUrl: string; admin: { url: string; token: string } }
  | { error: string };

export interface ServerThread { baseUrl: string; mcpUrl: string; mailboxUrl: string; admin: { url: string; token: string }; close(): Promise<void> }

/** The compiled thread, whoever starts it (a command, or a test from the TypeScript sources). */
const newThread = () => new Worker(program('src/targets/embedded-server.worker.ts'), { execArgv: [] });

let warm: Worker | undefined;

/**
 * Starts the server's thread now, for a run about to start: the server's modules (a few tenths of a second)
 * load while the harness's do. The next `startServerThread` takes it.
 */
export function warmServerThread(): void {
  warm ??= newThread();
}

/** Starts the embedded reference server in its thread and waits for its addresses. */
export async function startServerThread(data: EmbeddedServerData): Promise<ServerThread> {
  const worker = warm ?? newThread();
  warm = undefined;
  const ready = await new Promise<EmbeddedServerReady>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the embedded reference server's thread exited (code ${code}) before it was ready`)));
    worker.postMessage(data);
  });
  if ('error' in ready) {
    await worker.terminate();
    throw new Error(`the embedded reference server did not start: ${ready.error}`);
  }
  return {
    ...ready,
    async close() {
      const closed = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('close');
      await closed;
    },
  };
}
