import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each long file took in a full `npm test` (2 cores, 2026-11-27, after the in-process engine), longest first.
 * Estimates only: a file missing here, or grown since, costs some wall time, never a result.
 */
const ESTIMATED_SECONDS: Record<string, number> = {
  'test/measure/capacity-replicas.test.ts': 140, // alone, 2026-11-28
  'test/harness/variants.test.ts': 165,
  'test/harness/mutants.test.ts': 103,
  'test/harness/fail-closed.test.ts': 56,
  'test/harness/url-deployment.test.ts': 55,
  'test/harness/third-party.test.ts': 56,
  'test/load/probe-reference.test.ts': 51,
  'test/harness/targets.test.ts': 51,
  'test/load/load-mutants.test.ts': 44,
  'test/load/probe-mutants.test.ts': 44,
  'test/harness/secrets-hostile.test.ts': 39,
  'test/container/compose-replicas.test.ts': 38,
  'test/reference-server/stdio-proxy.test.ts': 31,
  'test/harness/reports.test.ts': 28,
  'test/harness/interop-matrix.test.ts': 26,
  'test/harness/reference-conforms.test.ts': 25,
  'test/load/load-cli.test.ts': 23,
  'test/load/k6-cli.test.ts': 20,
  'test/harness/server-everything.test.ts': 18,
  'test/container/engine-autostart.test.ts': 17,
  'test/harness/redirect.test.ts': 16,
  'test/load/load-baseline.test.ts': 15,
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
