import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { startListening } from './listening-server.js';

export type ThirdPartyServer = 'ts-v1' | 'python' | 'go';

export interface RunningServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** What the server printed so far (its listening line, then stderr). */
  output(): string;
  stop(): Promise<void>;
}

function commandOf(server: ThirdPartyServer): [string, string[]] {
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
  const [command, args] = commandOf(server);
  const started = await startListening({
    name: `${server} (${mode})`,
    command: (port) => ({ command, args, env: { PORT: String(port), MODE: mode, ...env } }),
    ready: /listening on http:\/\/127\.0\.0\.1:/,
    tail: 256 * 1024,
  });
  return { url: `http://127.0.0.1:${started.port}/mcp`, output: started.output, stop: started.stop };
}
