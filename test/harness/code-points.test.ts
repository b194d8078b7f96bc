import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyCodePoint } from '../../src/properties/code-points.js';

/** anyCodePoint stands in for fast-check's unit 'binary': it must generate and unmap exactly as that unit does. */
describe('anyCodePoint', () => {
  it('generates the very strings unit "binary" generates, seed for seed (bias and slices included)', () => {
    for (const seed of [1, 7, 42, 20260728]) {
      for (const constraints of [{ maxLength: 30 }, { minLength: 3, maxLength: 3 }, { minLength: 1, maxLength: 12 }]) {
        const ours = fc.sample(fc.string({ unit: anyCodePoint, ...constraints }), { seed, numRuns: 300 });
        const theirs = fc.sample(fc.string({ unit: 'binary', ...constraints }), { seed, numRuns: 300 });
        expect(ours).toEqual(theirs);
      }
    }
  });

  it('unmaps every scalar value it can produce and refuses anything else', () => {
    for (const s of ['\u0000', 'a', '\ud7ff', '\ue000', '\u{10ffff}', '\u{1f600}']) expect(anyCodePoint.canShrinkWithoutContext(s)).toBe(true);
    for (const s of ['', 'ab', '\ud800', '\udfff', 1, undefined]) expect(anyCodePoint.canShrinkWithoutContext(s)).toBe(false);
  });
});
