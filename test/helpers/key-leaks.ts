import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/*
 * What an output must never hold, derived here on its own (not with src/kit/key-spellings.ts, which the
 * tests judge): every spelling of every key the run held, and its secret part. Searched case-insensitively,
 * so the upper- and lower-cased forms of each spelling are covered.
 */

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64').replace(/=+$/, '');
const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

/** A key's spellings, each with a name that does not hold the key. */
export function keySpellings(key: string): [string, string][] {
  const cut = key.indexOf('_live_');
  const secret = cut >= 0 ? key.slice(cut + '_live_'.length) : key;
  const out: [string, string][] = [];
  for (const [of, v] of [['the key', key], ['its secret part', secret]] as const) {
    out.push([of, v], [`${of}, JSON-escaped`, JSON.stringify(v).slice(1, -1)], [`${of}, percent-encoded`, encodeURIComponent(v)]);
    for (const [form, text] of [['', v], [' as Basic "key:"', `${v}:`], [' as Basic ":key"', `:${v}`], [' as Basic "user:key"', `user:${v}`]] as const) {
      out.push([`base64 of ${of}${form}`, b64(text)], [`base64url of ${of}${form}`, b64url(text)], [`base64 of ${of}${form}, percent-encoded`, encodeURIComponent(b64(text))]);
    }
  }
  return out;
}

/** Which spellings of which keys (by their position in `keys`) `text` holds, in any case. */
export function keyLeaks(text: string, keys: readonly string[]): string[] {
  const folded = text.toLowerCase();
  return keys.flatMap((key, i) => keySpellings(key).filter(([, s]) => s && folded.includes(s.toLowerCase())).map(([name]) => `key #${i + 1}: ${name}`));
}

/** Every file of a report directory, by name (nested folders too). */
export function reportFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    if (statSync(path).isFile()) out[name] = readFileSync(path, 'utf8');
  }
  return out;
}

/** `file: key #n: spelling` for every leak in a report directory and a console transcript. */
export function outputLeaks(files: Record<string, string>, consoleText: string, keys: readonly string[]): string[] {
  return [...Object.entries(files), ['console', consoleText] as const].flatMap(([name, text]) => keyLeaks(text, keys).map((leak) => `${name}: ${leak}`));
}
