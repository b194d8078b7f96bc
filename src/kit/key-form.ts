/**
 * The key form of service.md §Authentication 2: "The key has the form `<KEY_PREFIX>_live_<secret>`." The
 * description puts no limit on the prefix's characters ("the fixed prefix that the service puts before
 * `_live_`"), so a prefix may hold `_`, `-` or `.` (`acme_sk_live_<secret>`): a key splits at its first
 * `_live_`, never at its first `_`. (A prefix that itself held `_live_` could not be told from the secret by
 * anyone, the service's users included: the first `_live_` is the only reading the form offers.)
 */

const LIVE = '_live_';

export interface KeyParts {
  prefix: string;
  secret: string;
}

/** `<prefix>_live_<secret>` split at its first `_live_`; undefined when either part would be empty. */
export function splitKey(key: string): KeyParts | undefined {
  const cut = key.indexOf(LIVE);
  if (cut <= 0 || cut + LIVE.length >= key.length) return undefined;
  return { prefix: key.slice(0, cut), secret: key.slice(cut + LIVE.length) };
}

/** `<prefix>_live_<secret>` → `<prefix>`. */
export function keyPrefixOf(key: string | undefined): string | undefined {
  return key === undefined ? undefined : splitKey(key)?.prefix;
}

/**
 * Whether `key` has the form, with this prefix when it is known: a non-empty prefix and secret around
 * `_live_`, without whitespace (a Bearer credential has none).
 */
export function hasKeyForm(key: string, prefix?: string): boolean {
  if (/\s/.test(key)) return false;
  if (prefix === undefined) return splitKey(key) !== undefined;
  return key.startsWith(`${prefix}${LIVE}`) && key.length > prefix.length + LIVE.length;
}

/** RFC 6750 §2.1: `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`. */
export const B64TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

/**
 * Why a key handed out by the service cannot be sent as `Authorization: Bearer <key>` (undefined: it can).
 * Such a key is judged once, by `bootstrap-key-b64token`; the run never puts it in a header of its own (an
 * HTTP client refuses a newline there, and every row needing a key would fail with the client's message).
 */
export function unusableKeyReason(key: string): string | undefined {
  if (B64TOKEN.test(key)) return undefined;
  const odd = [...new Set(Array.from(key).filter((ch) => !/[A-Za-z0-9._~+/=-]/.test(ch)))].map((ch) => JSON.stringify(ch)).join(', ');
  return `the bootstrapped key is not an RFC 6750 b64token (it holds ${odd || 'a "=" before its end'}), so it cannot be sent as a Bearer credential (bootstrap-key-b64token judges its form)`;
}
