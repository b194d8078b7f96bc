import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The slowest files, slowest first (the README's table). Vitest starts the files it has timings for longest
 * first, but CI runs on a clean clone with no timings, where vitest starts larger files first: the mutants
 * test (one of the smallest files, the longest run) then started half way through and set the run's tail.
 */
const SLOW_FIRST = [
  'test/harness/mutants.test.ts', 'test/harness/targets.test.ts', 'test/harness/variants.test.ts',
  'test/container/compose-replicas.test.ts', 'test/harness/url-deployment.test.ts', 'test/harness/secrets-hostile.test.ts',
  'test/load/probe-reference.test.ts', 'test/load/probe-mutants.test.ts', 'test/harness/cli.test.ts', 'test/load/load-cli.test.ts',
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((path) => f.moduleId.endsWith(path));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on servers and child processes: three at a time on two cores (the default here is one).
    maxWorkers: 3,
    sequence: { sequencer: SlowFirst },
  },
});
