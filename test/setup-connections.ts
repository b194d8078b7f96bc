import { Agent, setGlobalDispatcher } from 'undici';
import { isStaleConnection } from '../src/wire/connections.js';

/**
 * The tests' own HTTP (node's fetch, undici's request without a dispatcher) closes an idle connection after 1 s,
 * well before the 5 s after which node's servers close theirs; and a fetch whose connection was closed before any
 * reply came back is sent once more (its body is a string or absent). With node's defaults, a test process held up
 * by a busy machine sent on connections its servers had closed: "fetch failed" (ECONNRESET) from the test's own
 * client, not from what it tests (issue 33). A server that resets every such request still fails the test: the
 * retry meets the same reset. Set once per process: vitest runs this before every file of a process.
 */
const SET = Symbol.for('mcp-canvas-harness.test-connections');
const scope = globalThis as { [SET]?: true };
if (!scope[SET]) {
  scope[SET] = true;
  setGlobalDispatcher(new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 }));
  const fetchOnce = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    try {
      return await fetchOnce(input, init);
    } catch (err) {
      const replayable = (init?.body === undefined || init.body === null || typeof init.body === 'string') && !(input instanceof Request && input.body);
      if (!replayable || init?.signal?.aborted || !isStaleConnection(err)) throw err;
      return fetchOnce(input, init);
    }
  };
}
