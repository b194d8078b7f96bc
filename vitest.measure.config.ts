import { defineConfig } from 'vitest/config';

/**
 * The tests that measure on this machine (test/measure/: capacity searches against endpoints of known capacity,
 * the k6 and undici drivers side by side, one replica against two, the capacity command end to end): run after
 * the others, one file at a time. What they prove is the search's answer, and the search rightly answers "the
 * generator" when its own machine holds it back; beside three other test files on two cores that is most of
 * the time, and the answer under test would never be reached. (Its own settings, not vitest.config.ts merged:
 * merging concatenates the include and exclude lists.)
 */
export default defineConfig({
  test: {
    include: ['test/measure/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-connections.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
  },
});
