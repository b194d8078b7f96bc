/**
 * Child process of scripts/bench-reference.ts: the reference server on 127.0.0.1 (free port), with
 * the `unlimited` plan for bootstrapped workspaces so the rate limiter never throttles the benchmark.
 *
 *   node dist/scripts/bench/reference-server.js [--sourcemaps <file.json>]
 *
 * --sourcemaps: on exit, write the inline source maps of the project's modules ({ [file URL]: source map }),
 * so that a --cpu-prof profile of this process can be mapped back to .ts lines (see cpuprofile-summary.ts).
 * dist/ carries them when built with `npx tsc -p tsconfig.build.json --inlineSourceMap`; otherwise the
 * profile's lines are those of the compiled modules.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startReferenceServer } from '../../service/reference-server/app.js';
import { runChild } from '../../src/kit/child-runtime.js';

const { values } = parseArgs({ options: { sourcemaps: { type: 'string' } }, strict: true, allowPositionals: false });

/** Source maps of loaded project modules, from their inline `sourceMappingURL` (a build with --inlineSourceMap). */
function collectSourceMaps(): Record<string, unknown> {
  const maps: Record<string, unknown> = {};
  const session = new Session();
  session.connect();
  // Enabling the Debugger domain replays `scriptParsed` for every script already compiled; it is
  // done only at exit, so the debugger costs nothing while the server is measured.
  session.on('Debugger.scriptParsed', (event) => {
    const { url, sourceMapURL } = event.params;
    if (!url.startsWith('file://') || url.includes('/node_modules/') || !sourceMapURL?.startsWith('data:')) return;
    const comma = sourceMapURL.indexOf(',');
    const isBase64 = sourceMapURL.slice(0, comma).endsWith(';base64');
    const data = sourceMapURL.slice(comma + 1);
    try {
      maps[url] = JSON.parse(isBase64 ? Buffer.from(data, 'base64').toString('utf8') : decodeURIComponent(data));
    } catch {
      // An unreadable map only costs that file its .ts line numbers.
    }
  });
  session.post('Debugger.enable');
  session.post('Debugger.disable');
  session.disconnect();
  return maps;
}

runChild('reference-server child', {
  needsReply: false,
  async start() {
    const server = await startReferenceServer({ host: '127.0.0.1', port: 0, bootstrapPlan: 'unlimited' });
    return { url: server.baseUrl, close: () => server.close() };
  },
  beforeExit() {
    if (values.sourcemaps) writeFileSync(values.sourcemaps, JSON.stringify(collectSourceMaps()));
  },
});
