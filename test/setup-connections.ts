import { Agent, setGlobalDispatcher } from 'undici';

/**
 * The tests' own HTTP (node's fetch, undici's request without a dispatcher) closes an idle connection after 1 s,
 * well before the 5 s after which node's servers close theirs. With the default (about 4 s by the client's clock,
 * 5 s by the server's), a test process held up by a busy machine sent on connections its servers had closed:
 * "fetch failed" (ECONNRESET) from the test's own client, not from what it tests (issue 33). Set once per
 * process: vitest runs this before every file of a process that serves several.
 */
const SET = Symbol.for('mcp-canvas-harness.test-dispatcher');
const scope = globalThis as { [SET]?: true };
if (!scope[SET]) {
  scope[SET] = true;
  setGlobalDispatcher(new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 }));
}
