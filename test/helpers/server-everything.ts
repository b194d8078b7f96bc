import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from '../../src/kit/free-port.js';

/** How long server-everything may take to say it listens. */
const START_TIMEOUT_MS = 20_000;
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
  // The port may be taken between the probe and the server's listen: try again on another.
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    // --no-warnings: its long-running tool given a huge duration warns of a timer overflow every millisecond.
    const child = spawn(process.execPath, ['--no-warnings', '--import', preload, bin, 'streamableHttp'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port), GZIP_ALLOWED_DOMAINS: 'conformance.invalid', GZIP_MAX_FETCH_TIME_MILLIS: '1000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let ended = 0;
    let listening: () => void = () => {};
    const collect = (chunk: Buffer) => {
      const text = chunk.toString();
      ended += text.match(/Received session termination request/g)?.length ?? 0;
      output = (output + text).slice(-OUTPUT_TAIL);
      if (/listening on port/i.test(text)) listening();
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
        url: `http://127.0.0.1:${port}/mcp`,
        output: () => output,
        sessionsEnded: () => ended,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    if (attempt === 3) throw new Error(`server-everything did not start (attempt ${attempt}):\n${output.slice(-2000)}`);
  }
  throw new Error('unreachable');
}
