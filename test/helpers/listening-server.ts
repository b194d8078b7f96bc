import { spawn } from 'node:child_process';
import { freePort } from '../../src/kit/free-port.js';

/** How long a server may take to say it listens (Python loads its SDK in about a second). */
const START_TIMEOUT_MS = 20_000;

export interface ListeningServer {
  port: number;
  /** The end of what the server printed, stdout and stderr together (at most `tail` characters). */
  output(): string;
  stop(): Promise<void>;
}

export interface Launch {
  /** Shown when the server does not start. */
  name: string;
  /** The command line for a port, with the environment the server gets (nothing else of the test's). */
  command(port: number): { command: string; args: string[]; env: Record<string, string> };
  /** A line of output that says it accepts connections. */
  ready: RegExp;
  /** Characters of output kept. */
  tail: number;
  /** Sees every chunk of output as it comes. */
  onOutput?(text: string): void;
}

/**
 * A server program on a free loopback port, started once it says it listens. The port may be taken between
 * the probe and the server's listen: it is tried again on another, three times at most.
 */
export async function startListening(launch: Launch): Promise<ListeningServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const { command, args, env } = launch.command(port);
    const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let listening: () => void = () => {};
    const collect = (chunk: Buffer) => {
      const text = chunk.toString();
      launch.onOutput?.(text);
      output = (output + text).slice(-launch.tail);
      if (launch.ready.test(text)) listening();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
      listening = () => {
        clearTimeout(timer);
        resolve(true);
      };
      void exited.then(() => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) {
      return {
        port,
        output: () => output,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    if (attempt === 3) throw new Error(`${launch.name} did not start (attempt ${attempt}):\n${output.slice(-2000)}`);
  }
}
