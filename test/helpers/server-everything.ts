import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { startListening } from './listening-server.js';

/** What is kept of its output: it logs every request, and its long-running tool can loop for hours. */
const OUTPUT_TAIL = 64 * 1024;

export interface EverythingServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The end of what the server printed. */
  output(): string;
  /** Sessions it reported ending ("Received session termination request"), so far. */
  sessionsEnded(): number;
  stop(): Promise<void>;
}


/**
 * `@modelcontextprotocol/server-everything` (the pinned devDependency) in its streamableHttp mode, a stateful
 * Streamable HTTP server, on a free loopback port. It takes its port from PORT and binds every interface, so
 * test/helpers/loopback-only.mjs is preloaded to keep it on loopback. Its environment is minimal on purpose:
 * its get-env tool returns the whole environment, and the harness's reports record the replies. Its
 * gzip-file-as-resource tool fetches any URL it is given: only a domain that cannot exist is allowed.
 */
export async function startEverything(): Promise<EverythingServer> {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin: Record<string, string> };
  const bin = join(dirname(pkgPath), pkg.bin['mcp-server-everything']!);
  const preload = new URL('loopback-only.mjs', import.meta.url).href;
  let ended = 0;
  const server = await startListening({
    name: 'server-everything',
    // --no-warnings: its long-running tool given a huge duration warns of a timer overflow every millisecond.
    command: (port) => ({
      command: process.execPath, args: ['--no-warnings', '--import', preload, bin, 'streamableHttp'],
      env: { PORT: String(port), GZIP_ALLOWED_DOMAINS: 'conformance.invalid', GZIP_MAX_FETCH_TIME_MILLIS: '1000' },
    }),
    ready: /listening on port/i,
    tail: OUTPUT_TAIL,
    onOutput: (text) => {
      ended += text.match(/Received session termination request/g)?.length ?? 0;
    },
  });
  return { url: `http://127.0.0.1:${server.port}/mcp`, output: server.output, sessionsEnded: () => ended, stop: server.stop };
}
