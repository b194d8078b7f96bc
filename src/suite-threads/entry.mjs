// @ts-check
// The worker thread of src/suite-threads/pool.ts: vitest's own threads entry (vitest/worker), except that
// the end of a run does not deafen the thread, so that the next run of the process finds the harness's
// modules loaded. Plain JavaScript: vitest starts its threads without tsx.
import { parentPort } from 'node:worker_threads';
import { init, runBaseTests, setupEnvironment } from 'vitest/worker';

if (!parentPort) throw new Error('src/suite-threads/entry.mjs runs only as a worker thread');
const port = parentPort;
// vitest sends a run's last progress updates at most 100 ms after its last test (a throttle's timer).
const SETTLE_MS = 150;

port.on('message', (message) => {
  if (message?.__kept_suite_thread__ !== 'left?') return;
  // Asked once the run has stopped: whatever is still active then was left behind by the run. (Answered
  // from setImmediate: inside its own callback, a timer still counts as active.)
  const answer = () => port.postMessage({ __kept_suite_thread__: 'left', active: process.getActiveResourcesInfo() });
  setTimeout(() => setImmediate(answer), SETTLE_MS);
});

/** @type {((message: unknown) => void) | undefined} */
let initListener;
/** @type {((message: unknown) => void) | undefined} */
let runListener;

init({
  post: (response) => port.postMessage(response),
  on: (listener) => {
    // The first listener is init's own; each later one is a run's RPC, which replaces the last run's.
    if (initListener === undefined) initListener = listener;
    else {
      if (runListener) port.off('message', runListener);
      runListener = listener;
    }
    port.on('message', listener);
  },
  off: (listener) => port.off('message', listener),
  // vitest's entry removes every listener here; this thread waits for the next run instead.
  teardown: () => {},
  runTests: (state, traces) => runBaseTests('run', state, traces),
  collectTests: (state, traces) => runBaseTests('collect', state, traces),
  setup: setupEnvironment,
});
