import { scoped, slot } from './run-scope.js';
import { splitKey } from './key-form.js';
/**
 * The spellings of a secret, derived in one place: the scrubber (src/kit/scrub.ts) redacts every one of them
 * from records, reports and console lines, and the wire's key sightings (src/wire/key-sightings.ts) look for
 * every one of them in the service's replies. A hostile or careless service does not echo a key as it was
 * sent: it quotes it in JSON, percent-encodes it, base64-encodes it (alone, or as Basic credentials
 * `key:` / `:key`), upper-cases it, or shows its secret part alone.
 *
 * Matching is ASCII case-insensitive, so the upper- and lower-cased forms of every spelling (and any other
 * mix of cases) are found without listing them. Base64 is found at any alignment: the three "cores" of a
 * value (its base64 after 0, 1 or 2 bytes of anything, cut to the characters that depend on the value
 * alone) cover its base64 inside any longer base64 text, `user:key` and `key:` included.
 */

/**
 * Spellings shorter than this are matched by exact value as whole tokens only: a short secret (a `--header`
 * value `1`) is redacted wherever it stands alone, as an echo quotes it (`x-flag=1`, `"1"`, `: 1`, `key 1.`),
 * but not inside a longer word, number or version (`10`, `v1`, `HTTP/1.1`, `2025-06-18`), which a substring
 * match would shred. A standalone copy that did not come from the header (a count of 1) is redacted too: the
 * price of a one-character secret. Longer spellings are matched anywhere, as substrings.
 */
export const WHOLE_TOKEN_BELOW = 8;

/** A letter or digit, or one joined to the match by `.`, `_`, `-`, `/`, `~`, `+` (RFC 6750 b64token): the match is part of a longer token. */
const TOKEN_BEFORE = '(?<![A-Za-z0-9])(?<![A-Za-z0-9][._~+/-])';
const TOKEN_AFTER = '(?![A-Za-z0-9])(?![._~+/-][A-Za-z0-9])';

/** Base64 of anything shorter is a few characters that ordinary text holds by chance: not a spelling. */
const BASE64_MIN = 8;

/** A key's secret part shorter than this is not spelt on its own (see `spellingsOf`). */
const SECRET_PART_MIN = 8;

/** A service key's parts (src/kit/key-form.ts: split at the first `_live_`, whatever the prefix holds). */
export const keyParts = splitKey;

/** One spelling: its text, and a description of it that names no secret ("base64 of its secret part"). */
export interface Spelling {
  text: string;
  form: string;
}

/** The base64 of `bytes` after 0, 1 and 2 bytes of anything: only the characters that depend on `bytes` alone. */
export function base64Cores(bytes: Buffer): string[] {
  return [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // The first character free of the filler's bits, up to the last one the value's own bits fill.
    return encoded.slice([0, 2, 3][offset], Math.floor(((offset + bytes.length) * 8) / 6));
  });
}

/** `encodeURIComponent`, or the text itself where it cannot be encoded (a lone surrogate in a hostile reply's key). */
function percentEncoded(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The literal spellings of one piece of a secret (`of`: "the whole key", "its secret part", "the whole value"). */
function piece(text: string, of: string, base64: boolean): Spelling[] {
  const out: Spelling[] = [
    { text, form: of },
    { text: JSON.stringify(text).slice(1, -1), form: `${of}, JSON-escaped` },
    { text: percentEncoded(text), form: `${of}, percent-encoded` },
  ];
  if (base64 && text.length >= BASE64_MIN) {
    for (const core of base64Cores(Buffer.from(text, 'utf8'))) {
      out.push({ text: core, form: `base64 of ${of}` });
      out.push({ text: core.replace(/\+/g, '-').replace(/\//g, '_'), form: `base64url of ${of}` });
      out.push({ text: percentEncoded(core), form: `base64 of ${of}, percent-encoded` });
    }
  }
  return out;
}

/**
 * Every spelling of a secret, deduplicated (case-insensitively): for a service key the whole key (as is,
 * JSON-escaped, percent-encoded) and its secret part (the same, and base64 / base64url at every alignment,
 * which also covers the base64 of the whole key and of `key:` / `:key`); for any other secret the value itself
 * in all those forms.
 */
export function spellingsOf(value: string): Spelling[] {
  // A secret part of a few characters is no key's (an altered credential a check sent, `cnv_live_a`):
  // spelt alone it would blank every standalone `a`. The value is then spelt whole, as any other secret.
  const parts = keyParts(value);
  const all = parts && parts.secret.length >= SECRET_PART_MIN
    ? [...piece(value, 'the whole key', false), ...piece(parts.secret, 'its secret part', true)]
    : piece(value, parts ? 'the whole key' : 'the whole value', true);
  const seen = new Set<string>();
  return all.filter((s) => {
    const folded = s.text.toLowerCase();
    if (!s.text || seen.has(folded)) return false;
    seen.add(folded);
    return true;
  });
}

/** Where a spelling was found, and in which case. */
export interface SpellingMatch {
  index: number;
  length: number;
  /** The secret whose spelling this is: its position in the matcher's list. */
  owner: number;
  spelling: Spelling;
  /** `as is`, `upper-cased`, `lower-cased` or `in another case`. */
  casing: string;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** ASCII letters folded to lower case, every other character kept: the length (and so every index) stays. */
const fold = (text: string) => text.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/** Characters a long spelling is first found by (its head): a run's hundreds of spellings are looked up by it, not tried one by one. */
const HEAD = WHOLE_TOKEN_BELOW;

/** A char code with ASCII letters folded to lower case (what `fold` does, without a new string). */
const lowerCode = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

/** The hash of `text`'s `HEAD` characters from `at`, case folded (a polynomial over the char codes, 32 bits). */
function headHash(text: string, at: number): number {
  let h = 0;
  for (let i = at; i < at + HEAD; i++) h = (Math.imul(h, 31) + lowerCode(text.charCodeAt(i))) | 0;
  return h;
}

/** Whether `folded` (already folded) stands in `text` at `at`, case-insensitively. */
function foldedAt(text: string, at: number, folded: string): boolean {
  if (at + folded.length > text.length) return false;
  for (let j = 0; j < folded.length; j++) if (lowerCode(text.charCodeAt(at + j)) !== folded.charCodeAt(j)) return false;
  return true;
}

/** Bits of a head hash the matcher's filter keeps (`SpellingMatcher.heads`), and the mask of its word index. */
const HEAD_BITS = 20;
const HEAD_WORD_MASK = (1 << (HEAD_BITS - 5)) - 1;

/** 31^(HEAD-1) mod 2^32: what the leaving character weighs in the rolling hash. */
const LEAVING = Array.from({ length: HEAD - 1 }).reduce<number>((p) => Math.imul(p, 31), 1);

interface Entry { folded: string; owner: number; spelling: Spelling }

/**
 * A spelling as the matcher files it: its folded text; the hash of its head when it is long; and when it is at
 * least SAMPLED_MIN long, the hashes of its HEAD characters at each offset below STRIDE (`grams`).
 */
interface Filed { folded: string; spelling: Spelling; head?: number; grams?: number[] }

/**
 * Long spellings (a key, its secret part, their base64: 30 characters and more) are looked for at every
 * STRIDE-th position of a text only. A spelling of at least STRIDE + HEAD - 1 characters found at p covers
 * the position q, the first multiple of STRIDE from p, with its HEAD characters at offset q - p (below STRIDE):
 * filed by the hash of each of those, the spelling is found from q. A run reads some 15 million characters of
 * replies; one position in sixteen is one hash in sixteen.
 */
const STRIDE = 16;
const SAMPLED_MIN = STRIDE + HEAD - 1;

/**
 * Secrets whose spellings were derived before: a run builds a matcher per list of secrets, and its lists share
 * most of them. Kept in the run's scope (a command outside a run: the process's), so no run's secrets outlive it.
 */
const FILED = slot('spellings of secrets', () => new Map<string, Filed[]>());
const FILED_KEPT = 4096;

/** `spellingsOf(secret)` folded and hashed, derived once per secret. */
function filedOf(secret: string): Filed[] {
  const filedBySecret = scoped(FILED);
  let filed = filedBySecret.get(secret);
  if (!filed) {
    filed = spellingsOf(secret).map((spelling) => {
      const folded = fold(spelling.text);
      if (folded.length >= SAMPLED_MIN) return { folded, spelling, grams: Array.from({ length: STRIDE }, (_, j) => headHash(folded, j)) };
      return { folded, spelling, ...(folded.length >= WHOLE_TOKEN_BELOW && { head: headHash(folded, 0) }) };
    });
    if (filedBySecret.size >= FILED_KEPT) filedBySecret.clear();
    filedBySecret.set(secret, filed);
  }
  return filed;
}

/**
 * Candidates by gram hash, in typed arrays: an open-addressing table of hashes, each slot heading a chain of
 * candidates (a spelling and the offset of the gram in it). A run builds hundreds of matchers of thousands of
 * grams each: a Map of small arrays spent more building them than finding with them.
 */
class GramTable {
  readonly entry: Entry[] = [];
  readonly offset: number[] = [];
  /** The next candidate of the same hash, or -1. */
  readonly next: number[] = [];
  private readonly keys: Int32Array;
  /** 1 + the first candidate of the slot's hash; 0: an empty slot. */
  private readonly heads: Int32Array;
  private readonly mask: number;

  constructor(capacity: number) {
    const slots = 2 ** Math.ceil(Math.log2(Math.max(8, capacity * 2)));
    this.keys = new Int32Array(slots);
    this.heads = new Int32Array(slots);
    this.mask = slots - 1;
  }

  add(hash: number, entry: Entry, offset: number): void {
    let slot = hash & this.mask;
    while (this.heads[slot] !== 0 && this.keys[slot] !== hash) slot = (slot + 1) & this.mask;
    this.keys[slot] = hash;
    this.entry.push(entry);
    this.offset.push(offset);
    this.next.push(this.heads[slot]! - 1);
    this.heads[slot] = this.entry.length;
  }

  /** Candidates filed. */
  get size(): number {
    return this.entry.length;
  }

  /** The first candidate of `hash`, or -1. */
  first(hash: number): number {
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const head = this.heads[slot]!;
      if (head === 0) return -1;
      if (this.keys[slot] === hash) return head - 1;
    }
  }
}

/**
 * Finds and replaces every spelling of a list of secrets in text (case-insensitively; longest spelling first
 * at any position, so a key goes whole before its own secret part could). A run holds hundreds of keys, each
 * spelt some twenty ways: one alternation of them all made V8's regular expressions try each at every
 * position, which took most of a run's time. The longest spellings are looked for at every STRIDE-th position
 * (see STRIDE); those of HEAD to SAMPLED_MIN characters by a rolling hash of their first characters (one lookup
 * per position, then a compare); the few short ones, matched as whole tokens only, by a regular expression.
 */
export class SpellingMatcher {
  private readonly byFolded = new Map<string, Entry>();
  /** Long spellings by the hash of their head, longest first. */
  private readonly byHead = new Map<number, Entry[]>();
  /**
   * The low HEAD_BITS bits of every head hash, as a bit set: most positions of a text are ruled out by one
   * array read. A run's hundreds of keys file thousands of heads: with fewer bits, one position in ten passed.
   */
  private heads = new Uint32Array(0);
  /** Spellings of SAMPLED_MIN characters or more, by the hash of their HEAD characters at each offset below STRIDE. */
  private readonly grams: GramTable;
  private readonly short: RegExp | undefined;

  constructor(secrets: readonly string[]) {
    const shorts: string[] = [];
    const filed = secrets.map((secret) => (secret ? filedOf(secret) : []));
    this.grams = new GramTable(filed.reduce((n, list) => n + list.reduce((m, f) => m + (f.grams?.length ?? 0), 0), 0));
    filed.forEach((list, owner) => {
      for (const { folded, spelling, head, grams } of list) {
        if (this.byFolded.has(folded)) continue;
        const entry: Entry = { folded, owner, spelling };
        this.byFolded.set(folded, entry);
        if (grams) {
          for (let offset = 0; offset < grams.length; offset++) this.grams.add(grams[offset]!, entry, offset);
          continue;
        }
        if (head === undefined) {
          shorts.push(spelling.text);
          continue;
        }
        if (this.heads.length === 0) this.heads = new Uint32Array(1 << (HEAD_BITS - 5));
        this.heads[(head >>> 5) & HEAD_WORD_MASK]! |= 1 << (head & 31);
        const list = this.byHead.get(head);
        if (!list) this.byHead.set(head, [entry]);
        else {
          // Longest first; equal lengths in the order they came.
          const at = list.findIndex((e) => e.folded.length < folded.length);
          list.splice(at < 0 ? list.length : at, 0, entry);
        }
      }
    });
    shorts.sort((a, b) => b.length - a.length);
    this.short = shorts.length > 0 ? new RegExp(shorts.map((x) => `${TOKEN_BEFORE}${escapeRegExp(x)}${TOKEN_AFTER}`).join('|'), 'gi') : undefined;
  }

  /** Every spelling in `text`, left to right, not overlapping. */
  find(text: string): SpellingMatch[] {
    if (!text || this.byFolded.size === 0) return [];
    // Every spelling at every position where it stands, then the longest of those at each position, left to right.
    const found: { index: number; entry: Entry }[] = [];
    if (this.grams.size > 0) {
      for (let q = 0; q + HEAD <= text.length; q += STRIDE) {
        for (let c = this.grams.first(headHash(text, q)); c >= 0; c = this.grams.next[c]!) {
          const offset = this.grams.offset[c]!;
          const entry = this.grams.entry[c]!;
          if (q >= offset && foldedAt(text, q - offset, entry.folded)) found.push({ index: q - offset, entry });
        }
      }
    }
    if (this.byHead.size > 0 && text.length >= HEAD) {
      const heads = this.heads;
      const last = text.length - HEAD;
      let h = headHash(text, 0);
      for (let i = 0; ; i++) {
        if ((heads[(h >>> 5) & HEAD_WORD_MASK]! & (1 << (h & 31))) !== 0) {
          const hit = this.byHead.get(h)?.find((e) => foldedAt(text, i, e.folded));
          if (hit) found.push({ index: i, entry: hit });
        }
        if (i >= last) break;
        h = (Math.imul(h - Math.imul(lowerCode(text.charCodeAt(i)), LEAVING), 31) + lowerCode(text.charCodeAt(i + HEAD))) | 0;
      }
    }
    if (this.short) {
      const pattern = this.short;
      pattern.lastIndex = 0;
      for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
        const entry = this.byFolded.get(fold(m[0]));
        if (entry) found.push({ index: m.index, entry });
      }
    }
    // Left to right; at one position the longest; none inside the one before.
    found.sort((a, b) => a.index - b.index || b.entry.folded.length - a.entry.folded.length);
    const out: SpellingMatch[] = [];
    let end = 0;
    for (const { index, entry } of found) {
      if (index < end) continue;
      const length = entry.folded.length;
      const seen = text.slice(index, index + length);
      const literal = entry.spelling.text;
      const casing = seen === literal ? 'as is' : seen === literal.toUpperCase() ? 'upper-cased' : seen === literal.toLowerCase() ? 'lower-cased' : 'in another case';
      out.push({ index, length, owner: entry.owner, spelling: entry.spelling, casing });
      end = index + length;
    }
    return out;
  }

  /** `text` with every spelling replaced by `replacement`. */
  /** `replacement`: a fixed text, or one per secret (its place in this matcher's list), such as a stable alias. */
  replace(text: string, replacement: string | ((owner: number) => string)): string {
    const matches = this.find(text);
    if (matches.length === 0) return text;
    let out = '';
    let at = 0;
    for (const m of matches) {
      out += text.slice(at, m.index) + (typeof replacement === 'string' ? replacement : replacement(m.owner));
      at = m.index + m.length;
    }
    return out + text.slice(at);
  }
}

/**
 * The matchers built, by list of secrets, and the last list asked for (the wire client asks with the same
 * secrets request after request): in the run's scope, like the spellings.
 */
const MATCHERS = slot('spelling matchers', () => ({ cache: new Map<string, SpellingMatcher>(), last: undefined as { secrets: readonly string[]; matcher: SpellingMatcher } | undefined }));

/** The matcher for a list of secrets, built once per distinct list (the wire client asks per exchange). */
export function matcherFor(secrets: readonly string[]): SpellingMatcher {
  const kept = scoped(MATCHERS);
  const { last, cache } = kept;
  if (last && last.secrets.length === secrets.length && last.secrets.every((x, i) => x === secrets[i])) return last.matcher;
  const id = secrets.join('\u0000');
  let m = cache.get(id);
  if (!m) {
    if (cache.size >= 32) cache.delete(cache.keys().next().value!);
    cache.set(id, (m = new SpellingMatcher(secrets)));
  }
  kept.last = { secrets: [...secrets], matcher: m };
  return m;
}
