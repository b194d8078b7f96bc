import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests that measure on this machine (test/measure/: capacity searches against endpoints of known capacity,
 * the k6 and undici drivers side by side, one replica against two, the capacity command end to end): run after
 * the others, one file at a time. What they prove is the search's answer, and the search rightly answers "the
 * generator" when its own machine holds it back; beside three other test files on two cores that is most of
 * the time, and the answer under test would never be reached. The base settings, with the file lists replaced
 * (mergeConfig would concatenate them).
 */
export default defineConfig({
  test: {
    ...base.test,
    include: ['test/measure/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    fileParallelism: false,
    maxWorkers: 1,
  },
});
