import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each long file took in a clean-clone CI run (`.ci/run`, 2 cores, 2026-11-26), longest first.
 * Estimates only: a file missing here, or grown since, costs some wall time, never a result.
 */
const ESTIMATED_SECONDS: Record<string, number> = {
  'test/harness/targets.test.ts': 151,
  'test/container/compose-replicas.test.ts': 102,
  'test/harness/mutants.test.ts': 86,
  'test/load/probe-mutants.test.ts': 57,
  'test/harness/variants.test.ts': 55,
  'test/load/probe-reference.test.ts': 54,
  'test/harness/secrets-hostile.test.ts': 51,
  'test/harness/url-deployment.test.ts': 49,
  'test/load/load-cli.test.ts': 44,
  'test/reference-server/stdio-proxy.test.ts': 35,
  'test/reference-server/cli.test.ts': 31,
  'test/harness/cli.test.ts': 30,
  'test/container/engine-autostart.test.ts': 27,
  'test/harness/interop-matrix.test.ts': 27,
  'test/harness/properties.test.ts': 27,
  'test/load/load-mutants.test.ts': 25,
  'test/harness/server-everything.test.ts': 25,
  'test/load/load-baseline.test.ts': 22,
  'test/load/k6-cli.test.ts': 20,
};

/**
 * The longest files first, so that none starts late and runs on alone at the end. vitest orders them so itself
 * once it has timings (node_modules/.vite); on a clean clone, as in CI, it has none and goes by file size, which
 * started the mutant matrix (a short file with a long run) among the last: there the estimates above decide.
 */
export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const timed = files.some((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(root, f.moduleId)}`));
    if (timed) return sorted;
    const estimate = (f: TestSpecification) => ESTIMATED_SECONDS[relative(root, f.moduleId)] ?? 0;
    return [...sorted].sort((a, b) => estimate(b) - estimate(a));
  }
}
