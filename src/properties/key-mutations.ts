import fc from 'fast-check';

/**
 * An edit of a live key, described without the key: checks send the edited key, reports show only the edit
 * (an edited key reveals nearly all of the original, so it is as secret as the key).
 */
export type KeyEdit =
  | { op: 'replace'; at: number; char: string }
  | { op: 'insert'; at: number; char: string }
  | { op: 'delete'; at: number }
  | { op: 'truncate'; keep: number }
  | { op: 'extend'; suffix: string };

/** Visible ASCII: what a header value can carry without being trimmed or refused by the client. */
const VISIBLE = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));

/** b64token's punctuation (RFC 6750 §2.1): where loose parsers trim, split or normalise. */
const PUNCTUATION = fc.constantFrom('-', '.', '_', '~', '+', '/', '=');
const CHAR = fc.oneof({ arbitrary: VISIBLE, weight: 3 }, { arbitrary: PUNCTUATION, weight: 1 });

/** Positions wrap around the key's length, so one edit applies to keys of any length. */
export const keyEditArbitrary: fc.Arbitrary<KeyEdit> = fc.oneof(
  fc.record({ op: fc.constant('replace' as const), at: fc.nat(), char: CHAR }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), char: CHAR }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('truncate' as const), keep: fc.nat() }),
  fc.record({ op: fc.constant('extend' as const), suffix: fc.string({ unit: CHAR, minLength: 1, maxLength: 4 }) }),
);

/** The edited key; `at` and `keep` wrap around the key's length. */
export function applyKeyEdit(key: string, edit: KeyEdit): string {
  switch (edit.op) {
    case 'replace': {
      const at = edit.at % key.length;
      return key.slice(0, at) + edit.char + key.slice(at + 1);
    }
    case 'insert': {
      const at = edit.at % (key.length + 1);
      return key.slice(0, at) + edit.char + key.slice(at);
    }
    case 'delete': {
      const at = edit.at % key.length;
      return key.slice(0, at) + key.slice(at + 1);
    }
    case 'truncate':
      return key.slice(0, edit.keep % key.length);
    case 'extend':
      return key + edit.suffix;
  }
}

/** The edit in words, for reports: positions resolved against the key's length, never its characters. */
export function describeKeyEdit(edit: KeyEdit, keyLength: number): string {
  switch (edit.op) {
    case 'replace':
      return `character ${edit.at % keyLength} of ${keyLength} replaced by ${JSON.stringify(edit.char)}`;
    case 'insert':
      return `${JSON.stringify(edit.char)} inserted at ${edit.at % (keyLength + 1)} of ${keyLength}`;
    case 'delete':
      return `character ${edit.at % keyLength} of ${keyLength} deleted`;
    case 'truncate':
      return `truncated to ${edit.keep % keyLength} of ${keyLength} characters`;
    case 'extend':
      return `${JSON.stringify(edit.suffix)} appended`;
  }
}
