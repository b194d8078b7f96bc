import type { TestSpecification, Vitest } from 'vitest/node';
import { describe, expect, it } from 'vitest';
import LongFirstSequencer from '../long-first-sequencer.js';

const ROOT = '/repo';
const project = { name: '', config: { sequence: { groupOrder: 0 }, isolate: false } };
const spec = (path: string) => ({ project, moduleId: `${ROOT}/${path}` }) as unknown as TestSpecification;
/** A vitest context whose cache holds the given durations (ms) and file sizes. */
function context(durations: Record<string, number>, sizes: Record<string, number>): Vitest {
  return {
    config: { root: ROOT },
    cache: {
      getFileTestResults: (key: string) => (durations[key.slice(1)] === undefined ? undefined : { duration: durations[key.slice(1)], failed: false }),
      getFileStats: (key: string) => ({ size: sizes[key.slice(1)] ?? 0 }),
    },
  } as unknown as Vitest;
}
const order = async (ctx: Vitest, files: string[]) => (await new LongFirstSequencer(ctx).sort(files.map(spec))).map((f) => f.moduleId.slice(ROOT.length + 1));

describe('the long-first sequencer', () => {
  const files = ['test/harness/big.test.ts', 'test/harness/mutants.test.ts', 'test/harness/url-deployment.test.ts'];

  it('without timings of its own (a clean clone): the long files first, by their estimates, then by size', async () => {
    expect(await order(context({}, { 'test/harness/big.test.ts': 9000, 'test/harness/mutants.test.ts': 10, 'test/harness/url-deployment.test.ts': 20 }), files))
      .toEqual(['test/harness/mutants.test.ts', 'test/harness/url-deployment.test.ts', 'test/harness/big.test.ts']);
  });

  it("with vitest's timings: vitest's own order, longest measured first", async () => {
    const durations = { 'test/harness/big.test.ts': 90_000, 'test/harness/mutants.test.ts': 1_000, 'test/harness/url-deployment.test.ts': 5_000 };
    expect(await order(context(durations, {}), files)).toEqual(['test/harness/big.test.ts', 'test/harness/url-deployment.test.ts', 'test/harness/mutants.test.ts']);
  });
});
