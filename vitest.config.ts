import { defineConfig } from 'vitest/config';
import LongFirstSequencer from './test/long-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests that measure on this machine run after these, alone (vitest.measure.config.ts; npm test runs both).
    exclude: ['test/measure/**', '**/node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-connections.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    // Limits on hangs, not on speed: a test ends when its condition holds, and a slow or busy machine (issue 33:
    // 1.7x slower, or both cores taken by other work, `npm run test:busy`) must not fail it for being slow.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A test file's process serves the next file (its imports stay loaded; the file itself runs afresh): a new
    // process per file would load vitest and the harness again. The files leave nothing another depends on: no
    // mocks, no fake timers, no globals (a run's state is its own, src/engine/run-state.ts);
    // testcontainers, whose settings are read once per process, is loaded in one place (src/targets/testcontainers.ts).
    isolate: false,
    // Most files wait on servers, containers and child processes: four at a time keep two cores busy.
    maxWorkers: 4,
    sequence: { sequencer: LongFirstSequencer },
  },
});
