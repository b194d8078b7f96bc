import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each long file took in a clean-clone `.ci/run` (2 cores, 2026-11-26, the day's last), longest first.
 * Estimates only: a file missing here, or grown since, costs some wall time, never a result.
 */
const ESTIMATED_SECONDS: Record<string, number> = {
  'test/harness/mutants.test.ts': 98,
  'test/harness/url-deployment.test.ts': 70,
  'test/harness/targets.test.ts': 68,
  'test/load/probe-mutants.test.ts': 63,
  'test/harness/variants.test.ts': 62,
  'test/harness/secrets-hostile.test.ts': 56,
  'test/load/probe-reference.test.ts': 45,
  'test/container/compose-replicas.test.ts': 42,
  'test/container/engine-autostart.test.ts': 33,
  'test/harness/interop-matrix.test.ts': 30,
  'test/harness/properties.test.ts': 29,
  'test/reference-server/stdio-proxy.test.ts': 25,
  'test/load/load-cli.test.ts': 22,
  'test/harness/server-everything.test.ts': 22,
  'test/load/k6-cli.test.ts': 21,
  'test/load/load-conformance-report.test.ts': 20,
  'test/harness/https-target.test.ts': 20,
  'test/harness/cli.test.ts': 20,
  'test/load/load-mutants.test.ts': 17,
  'test/harness/progress.test.ts': 17,
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
