import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutant } from '../../service/mutants/index.js';
import type { ReferenceServer } from '../../service/reference-server/app.js';
import { startServer } from '../../fixtures/variants/variant.js';
import { ConformanceRuns } from '../../scripts/conformance-runs.js';
import type { Results } from '../../src/engine/results.js';

/**
 * Issue 35 item 7: with every SSE stream kept open after its final result (a SHOULD broken, `stream-closes`), a
 * url run took 202 s, a property check hit its 30 s deadline as a harness error (exit 2) and the searches fell to
 * 5 runs/s. Every check takes the result and stops reading; only the rows about what follows the result read on,
 * within their own bound. The service gets its SHOULD warning and nothing else, as a deployment (url target,
 * the 10 s request deadline a user gets) and on the embedded target.
 */
describe('a service that keeps every stream open after the result', () => {
  let server: ReferenceServer;
  let faithful: ReferenceServer;
  beforeAll(async () => {
    server = await startServer(undefined, (mutant('streams-never-end') as { middleware: Parameters<typeof startServer>[1] }).middleware);
    faithful = await startServer();
  });
  afterAll(async () => {
    await server?.close();
    await faithful?.close();
  });

  const statuses = (r: Results) => Object.fromEntries(r.requirements.map((q) => [q.id, q.status]));
  const unjudged = (r: Results) => r.requirements.flatMap((q) => q.checks).filter((c) => c.status === 'error' || (c.status === 'not-testable' && !c.notApplicable)).map((c) => `${c.name}: ${c.message ?? c.reason}`).sort();

  it.each([['url', true], ['embedded', false]] as const)('%s target: the same verdicts as the faithful service but its stream-closes warning; no check errs or runs out of time, every search runs', async (kind, ownProcess) => {
    // A url run in a process of its own: the servers live in this one.
    const pool = new ConformanceRuns(1, { ownProcess });
    const args = (url: string, name?: string) => (kind === 'url' ? ['--target', 'url', '--base-url', url] : name ? ['--mutant', name] : []);
    const run = await pool.run([...args(server.baseUrl, 'streams-never-end'), '--seed', '3'], 280_000);
    const twin = await pool.run([...args(faithful.baseUrl), '--seed', '3'], 280_000);
    expect(run.results, run.stderr).toBeDefined();
    expect(twin.results, twin.stderr).toBeDefined();
    const r = run.results!;
    // Nothing errs, nothing runs out of time. (What the user did not give is not testable on both; a rate-limit
    // burst that could not outpace the limit on a busy machine may be on one side only.)
    expect(unjudged(r).filter((line) => /deadline|harness error/.test(line))).toEqual([]);
    const judged = (x: Results, other: Results) => Object.fromEntries(Object.entries(statuses(x)).filter(([id, s]) => s !== 'not-testable' && statuses(other)[id] !== 'not-testable'));
    expect(judged(r, twin.results!)).toEqual({ ...judged(twin.results!, r), 'stream-closes': 'warn' });
    expect(run.code, r.verdict).toBe(twin.code);
    // The row reading past the result says why it warns: the stream outlived the bound it reads to.
    const closes = r.requirements.find((q) => q.id === 'stream-closes')!.checks.filter((c) => c.status === 'fail');
    expect(closes.length).toBeGreaterThan(0);
    for (const c of closes) expect(c.message).toMatch(/the stream was still open \d+ ms after the result \(the harness stopped reading there\)/);
    // The streams were read up to their response, and the wire log says so.
    const checks = r.requirements.flatMap((q) => q.checks);
    const streamed = checks.flatMap((c) => c.wire ?? []).filter((x) => x.response?.headers['content-type']?.startsWith('text/event-stream'));
    expect(streamed.some((x) => x.response!.readUntil === 'response')).toBe(true);
    for (const c of checks.filter((x) => x.property)) expect(c.property!.runs, c.name).toBeGreaterThan(0);
  }, 300_000);
});
