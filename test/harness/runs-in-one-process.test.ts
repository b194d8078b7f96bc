import { expect, it } from 'vitest';
import { runCommandLine } from '../../scripts/conformance-runs.js';
import { program } from '../../src/kit/package-root.js';
import type { Results } from '../../src/engine/results.js';
import { startListening, type ListeningServer } from '../helpers/listening-server.js';

/**
 * Issue 33: "Two runConformance() calls in one process against two servers, the first server stopped in
 * between: the second run's verdict is the same as alone." Runs in one process share nothing: each owns its
 * connection pool (src/wire/connections.ts) and closes it, so the second run never sends on a connection of the
 * first, nor waits on one to a server that is gone.
 */

/** `npm run reference` in a process of its own, with its default (production-like) limits. */
function reference(): Promise<ListeningServer> {
  return startListening({
    name: 'the reference server',
    command: (port) => ({ command: process.execPath, args: [program('service/reference-server/main.ts'), '--port', String(port)], env: {} }),
    ready: /^http:\/\/127\.0\.0\.1:\d+$/m,
    tail: 4_000,
  });
}

const statuses = (r: Results | undefined) => Object.fromEntries((r?.requirements ?? []).map((x) => [x.id, x.status]));

it('a second run in the same process, after the first run\'s server stopped, gives the verdict the first gave alone', async () => {
  const url = (s: ListeningServer) => ['--target', 'url', '--base-url', `http://127.0.0.1:${s.port}`, '--seed', '7'];
  const first = await reference();
  let second: ListeningServer | undefined;
  try {
    const a = await runCommandLine(url(first));
    expect(a.results?.exitCode, a.stderr || a.results?.verdict).toBe(0);
    await first.stop();
    second = await reference();
    const b = await runCommandLine(url(second));
    expect(b.code, `${b.stderr} ${b.results?.verdict}`).toBe(0);
    // The first run had the process to itself: the same server program, the same seed, row by row the same.
    expect(statuses(b.results)).toEqual(statuses(a.results));
    // Nothing of the first run's target reached into the second: no row is about a connection refused or cut.
    const cut = b.results!.requirements.flatMap((r) => r.checks.filter((c) => /ECONNREFUSED|other side closed|socket hang up|fetch failed/.test(`${c.message ?? ''}`)).map((c) => `${r.id}: ${c.message}`));
    expect(cut).toEqual([]);
  } finally {
    await first.stop();
    await second?.stop();
  }
}, 600_000);
