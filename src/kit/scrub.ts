/**
 * The one scrubber. Every report (conformance, load, probe) and every console line printed from a run's
 * results passes through `scrubDeep`/`scrubText` with the run's `Secrets` before any writer sees it; the
 * wire client uses `redact`/`redactHeaders` (the same literal and key-shape rules) as it records.
 *
 * What is a secret: every key, token and session id the run holds (keys bootstrapped inside checks too:
 * src/wire/key-sightings.ts brings them to the report door); every header value given to the run (but for
 * protocol vocabulary such as Accept); the userinfo of every URL given to it and the values of its
 * credential-looking query parameters. Each is redacted in every spelling src/kit/key-spellings.ts derives
 * (a key's secret part alone, JSON-escaped, percent-encoded, base64 and base64url, in any case), whatever its
 * length: short ones as whole tokens. Whatever the list misses, text shaped like a service key
 * (`<prefix>_live_<16+ chars>`), a Bearer credential, URL userinfo or a credential query value is
 * scrubbed too: hostile servers echo altered copies, and checks send altered keys on purpose.
 */
import { hasKeyForm } from './key-form.js';
import { matcherFor, SpellingMatcher } from './key-spellings.js';
import { scoped, slot } from './run-scope.js';

export const REDACTED = '[REDACTED]';

/**
 * Each known secret is replaced by an alias stable for the run (`<key#1>`, `<secret#2>`), in every spelling and
 * every report, so that evidence keeps which values were equal and which differed (an event id equal to the
 * session id, one key sent twice) while no secret is written. The number says only the order in which the run
 * first redacted each secret. Text that is only shaped like a secret (patterns below) stays `[REDACTED]`.
 */
const ALIASES = slot('secret aliases', () => new Map<string, string>());

export function aliasOf(secret: string): string {
  const aliases = scoped(ALIASES);
  let alias = aliases.get(secret);
  if (alias === undefined) aliases.set(secret, (alias = `<${hasKeyForm(secret) ? 'key' : 'secret'}#${aliases.size + 1}>`));
  return alias;
}

/** The alias of each secret of `list`, by its place in the list (a matcher's owner). */
const aliasing = (list: readonly string[]) => (owner: number) => aliasOf(list[owner]!);

/** Anything shaped like a service key (`<prefix>_live_<16+ characters>`), known or not: altered keys leak too. */
export function scrubKeyShapes(text: string): string {
  if (!text.includes('_live_')) return text; // the report door calls this for every string: most hold no key shape
  return text.replace(/(?<=_live_)[A-Za-z0-9]{16,}/g, REDACTED); // a lookbehind: linear on long text
}

/** Replaces every spelling of every given secret, then anything key-shaped (the wire client's rule as it records). */
export function redact(text: string, secrets: readonly string[]): string {
  return scrubKeyShapes(matcherFor(secrets).replace(text, aliasing(secrets)));
}

/**
 * Authorization credentials are never recorded, whatever they are: checks send altered copies of real keys
 * (case-swapped, truncated), which a list of known secrets would miss. The scheme and length stay as evidence.
 */
export function redactHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (k === 'authorization') {
      const m = /^(\s*\S+)(\s+)(.+)$/.exec(v);
      out[k] = m ? `${m[1]}${m[2]}[REDACTED ${m[3]!.length} chars]` : v.length > 12 ? `[REDACTED ${v.length} chars]` : v;
    } else {
      out[k] = redact(v, secrets);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Patterns for secrets nobody listed

/** `scheme://user:password@` → `scheme://[REDACTED]@`. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+@/gi;

/** Query parameter names that carry credentials: key, api_key, apikey, token, access_token, secret, password, sig, signature... */
const CREDENTIAL_NAME = /^(?:[a-z0-9._-]*[_-])?(?:api[_-]?key|apikey|key|token|secret|password|passwd|pwd|sig|signature|credentials?|auth)$/i;
const CREDENTIAL_QUERY = /([?&;](?:[a-z0-9._-]*[_-])?(?:api[_-]?key|apikey|key|token|secret|password|passwd|pwd|sig|signature|credentials?|auth)=)(?!\[REDACTED)[^&#\s"'<>\\]+/gi;

/**
 * `Bearer <credential>` in free text (an error message, a WWW-Authenticate echo). Only token-shaped values
 * (12+ characters with a digit): prose such as "a Bearer token" or "Bearer <API_KEY>" stays readable, and
 * the wire log's own `Bearer [REDACTED n chars]` is left as it is.
 */
const BEARER = /\b(Bearer\s+)(?!\[REDACTED)([A-Za-z0-9\-._~+/]+=*)/gi;

/** The secret-free patterns alone (URL userinfo, credential query values, Bearer credentials, key shapes). */
export function scrubPatterns(text: string): string {
  // Each pattern only where the text holds what it cannot match without: most strings of a report hold none.
  let out = text;
  if (out.includes('@')) out = out.replace(USERINFO, `$1${REDACTED}@`);
  if (out.includes('=')) out = out.replace(CREDENTIAL_QUERY, `$1${REDACTED}`);
  if (/bearer/i.test(out)) out = out.replace(BEARER, (whole, scheme: string, token: string) => (token.length >= 12 && /\d/.test(token) ? `${scheme}${REDACTED}` : whole));
  return scrubKeyShapes(out);
}

// ---------------------------------------------------------------------------------------------------
// The run's secrets

/** Header values that are protocol vocabulary, never credentials: scrubbing `2025-06-18` would blank every revision name. */
const PUBLIC_HEADERS = new Set(['accept', 'accept-encoding', 'accept-language', 'content-type', 'content-length', 'user-agent', 'mcp-protocol-version', 'cache-control', 'connection']);

export interface SecretSources {
  /** Keys, tokens, session ids: each is a secret (and a key's part after `_live_` on its own). */
  values?: Iterable<string | undefined | null>;
  /** Header values given to the run (`--header`, a target's headers). */
  headers?: Record<string, string | undefined>;
  /** URLs given to the run: their userinfo and credential-looking query values are secrets. */
  urls?: Iterable<string | undefined | null>;
}

/** A run's secrets, built once per run; `scrub` is the one text scrubber of every report. */
export class Secrets {
  private readonly matcher: SpellingMatcher;
  private readonly alias: (owner: number) => string;

  constructor(private readonly values: readonly string[] = []) {
    const unique = [...new Set(values)];
    this.matcher = new SpellingMatcher(unique);
    this.alias = aliasing(unique);
  }

  static from(sources: SecretSources): Secrets {
    const values: string[] = [];
    for (const v of sources.values ?? []) if (v) values.push(v);
    for (const [name, value] of Object.entries(sources.headers ?? {})) {
      if (!value || PUBLIC_HEADERS.has(name.toLowerCase())) continue;
      values.push(value);
      // `Scheme credentials`: the credentials alone; Basic carries base64 `user:password`.
      const m = /^(\S+)\s+(\S.*)$/.exec(value.trim());
      if (m) {
        values.push(m[2]!);
        if (/^basic$/i.test(m[1]!)) values.push(...userPassword(Buffer.from(m[2]!, 'base64').toString('utf8')));
      }
    }
    for (const u of sources.urls ?? []) if (u) values.push(...urlSecrets(u));
    return new Secrets(values);
  }

  /** These secrets and more (the probe learns keys as it goes). */
  with(sources: SecretSources): Secrets {
    return new Secrets([...this.values, ...Secrets.from(sources).values]);
  }

  scrub(text: string): string {
    return scrubPatterns(this.matcher.replace(text, this.alias));
  }
}

function userPassword(text: string): string[] {
  const i = text.indexOf(':');
  return i < 0 ? [text] : [text, text.slice(i + 1)];
}

/** The credentials inside a URL: its userinfo (user, password, both) and credential-looking query values. */
export function urlSecrets(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out: string[] = [];
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  // A user beside a password is a name (`admin`), redacted with it; a user alone is the credential (`https://<token>@host`).
  if (user || password) out.push(`${user}:${password}`, `${u.username}:${u.password}`, ...(password ? [password, u.password] : [user, u.username]));
  for (const [name, value] of u.searchParams) if (value && CREDENTIAL_NAME.test(name)) out.push(value);
  return out;
}

/** `text` scrubbed with the run's secrets (or the patterns alone). */
export function scrubText(text: string, secrets?: Secrets): string {
  return secrets ? secrets.scrub(text) : scrubPatterns(text);
}

/**
 * A copy of any JSON-able value with every string scrubbed, object keys included (a header name or a
 * map keyed by URL can hold a secret as well as a value can). Numbers, booleans, null pass as they are.
 */
export function scrubDeep<T>(value: T, secrets?: Secrets): T {
  // A report repeats its short strings (field names, statuses, header names) thousands of times: each is scrubbed once.
  const done = new Map<string, string>();
  const scrub = (text: string): string => {
    if (text.length > 256) return scrubText(text, secrets);
    let out = done.get(text);
    if (out === undefined) done.set(text, (out = scrubText(text, secrets)));
    return out;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[scrub(k)] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
