import fc from 'fast-check';

const SURROGATES = 0x800; // U+D800..U+DFFF

/**
 * Any Unicode scalar value (every code point but the surrogates), one per string: exactly fast-check's
 * `unit: 'binary'` (the same index for the same draw, the same unmapping), without its cost. fast-check builds
 * that unit's reverse mapping as a Map of all 1.1 million code points the first time a string arbitrary
 * asks whether it can produce a value (about a second of CPU, once per process: a tenth of a default run);
 * here unmapping is arithmetic.
 */
export const anyCodePoint: fc.Arbitrary<string> = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (i) => String.fromCodePoint(i <= 0xd7ff ? i : i + SURROGATES),
  (value) => {
    const cp = typeof value === 'string' ? value.codePointAt(0) : undefined;
    if (cp === undefined || String.fromCodePoint(cp) !== value || (cp >= 0xd800 && cp <= 0xdfff)) throw new Error('not a single Unicode scalar value');
    return cp <= 0xd7ff ? cp : cp - SURROGATES;
  },
);
