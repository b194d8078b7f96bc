import { threadId } from 'node:worker_threads';
import { test } from 'vitest';
import { evaluations } from './loaded-once.js';

// A run that leaves a timer running: its thread must not serve another run.
test('records its thread and leaves a timer behind', ({ task }) => {
  task.meta.thread = { id: threadId, evaluations };
  setInterval(() => undefined, 60_000);
});
