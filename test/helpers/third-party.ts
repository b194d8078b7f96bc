import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { freePort } from '../../src/kit/free-port.js';

/** How long a server may take to say it listens (Python loads its SDK in about a second). */
const START_TIMEOUT_MS = 20_000;

export type ThirdPartyServer = 'ts-v1' | 'python' | 'go';

export interface RunningServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

function command(server: ThirdPartyServer): [string, string[]] {
  switch (server) {
    case 'ts-v1':
      return [process.execPath, [join(PACKAGE_ROOT, 'dist/fixtures/third-party/ts-v1/server.js')]];
    case 'python':
      return [join(PACKAGE_ROOT, '.tools/venv/bin/python'), [join(PACKAGE_ROOT, 'fixtures/third-party/python/server.py')]];
    case 'go':
      return [join(PACKAGE_ROOT, '.tools/bin/third-party-go'), []];
  }
}

/** One of fixtures/third-party's servers on a free loopback port, in `mode`, with `env` added. */
export async function startThirdParty(server: ThirdPartyServer, mode: 'stateful' | 'stateless', env: Record<string, string> = {}): Promise<RunningServer> {
  const [cmd, args] = command(server);
  // The port may be taken between the probe and the server's listen: try again on another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(cmd, args, { env: { PATH: process.env.PATH ?? '', PORT: String(port), MODE: mode, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-256 * 1024);
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening on http://127.0.0.1:')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) {
      return {
        url: `http://127.0.0.1:${port}/mcp`,
        stderr: () => stderr,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    if (attempt === 3) throw new Error(`${server} (${mode}) did not start:\n${stderr.slice(-2000)}`);
  }
}
