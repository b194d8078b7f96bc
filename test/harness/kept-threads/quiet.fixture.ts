import { threadId } from 'node:worker_threads';
import { test } from 'vitest';
import { evaluations } from './loaded-once.js';

// A run that leaves nothing behind: its thread may serve the next run.
test('records its thread', ({ task }) => {
  task.meta.thread = { id: threadId, evaluations };
});
