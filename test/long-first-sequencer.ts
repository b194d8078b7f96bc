import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each file of 15 s or more took in a full `npm test` (2 cores, clean-clone CI of 2026-11-29), longest
 * first. Estimates only: a file missing here, or grown since, costs some wall time, never a result. With none
 * (the table of 2026-11-27 lacked the packing test and the whole-profile runs) a 60-335 s file could start
 * among the last and run on at the end beside few others.
 */
const ESTIMATED_SECONDS: Record<string, number> = {
  'test/measure/capacity-replicas.test.ts': 140, // alone, 2026-11-28 (the measure phase runs one file at a time)
  'test/packaging/pack-install.test.ts': 335,
  'test/harness/variants.test.ts': 240,
  'test/harness/mutants.test.ts': 228,
  'test/harness/third-party.test.ts': 199,
  'test/container/harness-image.test.ts': 161,
  'test/harness/fail-closed.test.ts': 100,
  'test/harness/streams-left-open.test.ts': 99,
  'test/harness/signals.test.ts': 89,
  'test/harness/url-deployment.test.ts': 81,
  'test/harness/screenshots.test.ts': 70,
  'test/harness/targets.test.ts': 69,
  'test/harness/reports.test.ts': 68,
  'test/load/probe-mutants.test.ts': 66,
  'test/reference-server/stdio-proxy.test.ts': 65,
  'test/load/docs-gates.test.ts': 64,
  'test/harness/one-fault-one-row.test.ts': 64,
  'test/harness/runs-in-one-process.test.ts': 63,
  'test/harness/reference-conforms.test.ts': 62,
  'test/load/load-cli.test.ts': 60,
  'test/harness/interop-matrix.test.ts': 57,
  'test/harness/first-minutes.test.ts': 57,
  'test/load/probe-reference.test.ts': 56,
  'test/load/load-baseline.test.ts': 48,
  'test/harness/secrets-hostile.test.ts': 44,
  'test/harness/streaming-generic.test.ts': 38,
  'test/container/compose-replicas.test.ts': 36,
  'test/load/k6-cli.test.ts': 34,
  'test/harness/redirect.test.ts': 33,
  'test/packaging/action.test.ts': 31,
  'test/harness/server-everything.test.ts': 31,
  'test/harness/public-base-url.test.ts': 28,
  'test/container/engine-autostart.test.ts': 26,
  'test/load/load-mutants.test.ts': 25,
  'test/harness/report-html-render.test.ts': 24,
  'test/harness/request-ids.test.ts': 24,
  'test/load/load-conformance-report.test.ts': 23,
  'test/harness/revision-runs.test.ts': 23,
  'test/container/load-container.test.ts': 20,
  'test/harness/dns-rebinding.test.ts': 20,
  'test/reference-server/cli.test.ts': 19,
  'test/harness/schema-arbitrary.test.ts': 17,
  'test/reference-server/bootstrap.test.ts': 16,
  'test/harness/properties.test.ts': 15,
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
