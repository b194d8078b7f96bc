import { Worker } from 'node:worker_threads';
import { program } from '../kit/package-root.js';

export type ToServerThread = { type: 'start'; id: number; mutant?: string } | { type: 'close'; id: number };
/** A server's addresses, its mailbox's (the harness's SMTP sink, read over HTTP) and its admin channel's. */
export type FromServerThread =
  | { id: number; baseUrl: string; mcpUrl: string; mailboxUrl: string; admin: { url: string; token: string } }
  | { id: number; error: string }
  | { id: number; closed: true };

export interface ServerThread { baseUrl: string; mcpUrl: string; mailboxUrl: string; admin: { url: string; token: string }; close(): Promise<void> }

/** The process's server thread (src/targets/embedded-server.worker.ts), started on first need. */
let host: { worker: Worker; waiting: Map<number, (reply: FromServerThread) => void> } | undefined;
let nextId = 1;
/** Servers started and not closed, and requests not answered: while any, the thread keeps the process alive. */
let busy = 0;

function hold(delta: 1 | -1): void {
  busy += delta;
  if (busy > 0) host?.worker.ref();
  else host?.worker.unref();
}

function serverHost(): NonNullable<typeof host> {
  if (host) return host;
  // The compiled thread, whoever starts it (a command, or a test from the TypeScript sources): one file the build
  // bundles from src/targets/embedded-server.worker.ts (scripts/bundle-server-thread.mjs), quicker to load than its modules.
  const worker = new Worker(program('src/targets/embedded-server.bundle.ts'), { execArgv: [] });
  const waiting = new Map<number, (reply: FromServerThread) => void>();
  worker.on('message', (reply: FromServerThread) => {
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const fail = (err: Error) => {
    for (const settle of waiting.values()) settle({ id: 0, error: `the embedded reference servers' thread stopped: ${err.message}` });
    waiting.clear();
    host = undefined;
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`it exited with code ${code}`)));
  host = { worker, waiting };
  // Idle, the thread never keeps the process alive: a command ends when its run does.
  if (busy === 0) worker.unref();
  return host;
}

async function ask(message: ToServerThread): Promise<FromServerThread> {
  const h = serverHost();
  hold(1);
  try {
    return await new Promise((resolve) => {
      h.waiting.set(message.id, resolve);
      h.worker.postMessage(message);
    });
  } finally {
    hold(-1);
  }
}

/**
 * Starts the server thread now, for a run about to start: the server's modules (a few tenths of a second)
 * load while the harness's do.
 */
export function warmServerThread(): void {
  serverHost();
}

/** Starts an embedded reference server (the reference, or the named mutant) in the server thread. */
export async function startServerThread(mutant?: string): Promise<ServerThread> {
  const id = nextId++;
  const ready = await ask({ type: 'start', id, ...(mutant && { mutant }) });
  if ('error' in ready) throw new Error(`the embedded reference server did not start: ${ready.error}`);
  if ('closed' in ready) throw new Error('the embedded reference server closed before it started');
  const { baseUrl, mcpUrl, mailboxUrl, admin } = ready;
  hold(1);
  let closed = false;
  return {
    baseUrl, mcpUrl, mailboxUrl, admin,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await ask({ type: 'close', id });
      } finally {
        hold(-1);
      }
    },
  };
}
