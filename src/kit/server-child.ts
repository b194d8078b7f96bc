/** The parent side: spawn a server child (`node <its compiled script>`), wait for its URL, ask its CPU time, stop it. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { CannedReply, FromChild, ToChild } from './child-protocol.js';
import { program } from './package-root.js';
import { reaped } from './child-reaper.js';

export interface ServerChild {
  readonly name: string;
  readonly url: string;
  /** The loopback admin channel, when the child offers one. */
  readonly admin?: { url: string; token: string };
  readonly pid: number;
  /** CPU time (user + system) the child has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  /** Asks the child to close and exit; SIGKILL after `timeoutMs`. Resolves with its exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
}

export interface SpawnOptions {
  name: string;
  /** The child's entry, as a source path (absolute, or relative to the package): its compiled program runs. */
  script: string;
  /** The child's working directory. */
  cwd: string;
  nodeArgs?: string[];
  args?: string[];
  reply?: CannedReply;
  startupTimeoutMs?: number;
}

export { killAllChildren } from './child-reaper.js';

/**
 * How long a child may take to say it is ready before it counts as hung: a bound on hangs, not on speed. A
 * child that starts in about a second alone took over 30 s (the old deadline) on a 2-core machine whose cores
 * other work kept busy (issue 33): a slow start is the harness's machine, never the service. A child that
 * fails says so at once (its 'failed' message, or its exit); only one that neither answers nor exits waits this long.
 */
export const STARTUP_HANG_MS = 120_000;

function post(child: ChildProcess, message: ToChild): void {
  if (child.connected) child.send(message);
}

export function spawnServerChild(options: SpawnOptions): Promise<ServerChild> {
  const { name } = options;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), program(options.script), ...(options.args ?? [])], {
    cwd: options.cwd,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  reaped(child);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
  });

  const startupMs = options.startupTimeoutMs ?? STARTUP_HANG_MS;
  return new Promise<ServerChild>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name}: not ready within ${startupMs} ms`));
    }, startupMs);
    const fail = (message: string) => {
      clearTimeout(timer);
      child.off('message', onStartup);
      reject(new Error(`${name}: ${message}`));
    };
    const onStartup = (raw: unknown) => {
      const message = raw as FromChild;
      if (message.type === 'failed') fail(message.message);
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      child.off('message', onStartup);
      void exited.then((code) => {
        if (!stopping) console.error(`${name}: exited unexpectedly (code ${code})`);
      });
      resolve({
        name,
        url: message.url,
        ...(message.admin && { admin: message.admin }),
        pid: child.pid!,
        cpuMicros: () => new Promise<number>((res, rej) => {
          const t = setTimeout(() => {
            child.off('message', onCpu);
            rej(new Error(`${name}: no CPU reading within 5 s`));
          }, 5000);
          const onCpu = (m: unknown) => {
            if ((m as FromChild).type !== 'cpu') return;
            clearTimeout(t);
            child.off('message', onCpu);
            res((m as Extract<FromChild, { type: 'cpu' }>).micros);
          };
          child.on('message', onCpu);
          post(child, { type: 'cpu' });
        }),
        stop: (timeoutMs = 10000) => {
          stopping = true;
          if (child.exitCode !== null || child.signalCode !== null) return exited;
          post(child, { type: 'stop' });
          const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          return exited.finally(() => clearTimeout(kill));
        },
      });
    };
    let stopping = false;
    child.on('message', onStartup);
    child.once('error', (err) => fail(err.message));
    void exited.then((code) => fail(`exited with code ${code} before it was ready`));
    if (options.reply) post(child, { type: 'reply', reply: options.reply });
  });
}
