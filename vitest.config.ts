import { defineConfig } from 'vitest/config';
import LongFirstSequencer from './test/long-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A test file's process serves the next file (its imports stay loaded; the file itself runs afresh):
    // a new process per file spent ~0.33 s of CPU loading vitest and the harness again (48 small files:
    // 31.9 -> 16.0 CPU-s). The files leave nothing another depends on: no mocks, no fake timers, no globals;
    // testcontainers, whose settings are read once per process, is loaded with them in one place
    // (src/targets/testcontainers.ts).
    isolate: false,
    // Most files wait on servers, containers and child processes: four at a time keep two cores busy (the
    // default here is one; three left the cores idle 13 % of the run: 319 s against 305 s with four).
    maxWorkers: 4,
    sequence: { sequencer: LongFirstSequencer },
  },
});
