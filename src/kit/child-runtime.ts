/**
 * The child side of the IPC protocol: a server child reports `ready` with its URL, answers `cpu`
 * with its own CPU time, and on `stop`, SIGTERM/SIGINT or loss of the parent closes its server and
 * exits with process.exit (which is also what makes `node --cpu-prof` write its profile).
 */
import type { CannedReply, FromChild, ToChild } from './child-protocol.js';

export interface RunningServer {
  url: string;
  admin?: { url: string; token: string };
  close(): Promise<void>;
}

export interface ChildOptions {
  /** Wait for a `reply` message from the parent before starting (the bare server needs one). */
  needsReply: boolean;
  start(reply: CannedReply | undefined): Promise<RunningServer>;
  /** Runs after the server closed, before exit. */
  beforeExit?(): void;
}

function send(message: FromChild): void {
  process.send?.(message);
}

export function runChild(name: string, options: ChildOptions): void {
  if (!process.send) {
    console.error(`${name}: run me through scripts/bench-reference.ts (I need an IPC channel to the parent)`);
    process.exit(2);
  }
  let server: RunningServer | undefined;
  let starting = false;
  let stopping = false;

  const stop = (code: number): void => {
    if (stopping) return;
    stopping = true;
    // Bounded: a server that does not close within 5 s is abandoned.
    const force = setTimeout(() => process.exit(code), 5000);
    force.unref();
    void (server ? server.close() : Promise.resolve())
      .catch((err: unknown) => console.error(`${name}: close failed: ${(err as Error).message}`))
      .then(() => {
        try {
          options.beforeExit?.();
        } catch (err) {
          console.error(`${name}: ${(err as Error).message}`);
        }
        process.exit(code);
      });
  };

  const start = (reply: CannedReply | undefined): void => {
    if (starting) return;
    starting = true;
    options.start(reply).then(
      (s) => {
        server = s;
        send({ type: 'ready', url: s.url, ...(s.admin && { admin: s.admin }) });
      },
      (err: unknown) => {
        send({ type: 'failed', message: (err as Error).message });
        stop(1);
      },
    );
  };

  process.on('message', (raw: unknown) => {
    const message = raw as ToChild;
    if (message.type === 'reply') start(message.reply);
    else if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', micros: user + system });
    } else if (message.type === 'stop') stop(0);
  });
  process.on('disconnect', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(0));
  if (!options.needsReply) start(undefined);
}
