/**
 * Rate-limit header fields, read as their specifications define them:
 *
 * - draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy` ("a non-empty List of Quota Policy Items":
 *   q = quota, qu = quota unit, w = window in seconds, pk = partition key) and `RateLimit` (a List of
 *   items: r = remaining quota, t = seconds until the quota resets, pk), both Structured Fields (RFC 9651).
 * - drafts up to -06 (and common practice): `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`,
 *   and the `X-RateLimit-*` variants.
 * - RFC 9110 §10.2.3: `Retry-After = HTTP-date / delay-seconds`.
 *
 * Partition keys are reported by length only: a server may derive them from the client's credentials.
 * Structured Fields are parsed by `structured-headers` (RFC 9651). All functions here are pure.
 */

import { isInnerList, parseList, Token, type BareItem, type Item, type List } from 'structured-headers';

// ---------------------------------------------------------------------------------------------------
// The fields

export interface QuotaPolicy {
  name: string;
  /** q: the quota (required). */
  quota: number;
  /** qu: the quota unit (default "requests"). */
  unit: string;
  /** w: the window in seconds. */
  windowS?: number;
  /** pk: the partition key's length in bytes (its value is never reported). */
  partitionKeyBytes?: number;
}

export interface QuotaState {
  name: string;
  /** r: remaining quota units (required). */
  remaining: number;
  /** t: seconds until the quota resets. */
  resetS?: number;
  partitionKeyBytes?: number;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; why: string };

const nameOf = (v: BareItem): string | undefined => (typeof v === 'string' ? v : v instanceof Token ? v.toString() : undefined);
const isNonNegInt = (v: BareItem | undefined): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

interface NamedItem {
  name: string;
  params: Record<string, BareItem>;
  /** pk's length in bytes, when present. */
  partitionKeyBytes?: number;
}

/**
 * A field's items, each named by a String or Token, with their parameters as a plain record and a pk that
 * must be a Byte Sequence; a field that fails to parse is ignored whole (RFC 9651 §4.2). `label` names an
 * item in messages.
 */
function namedItems(value: string, field: string, label: string): Parsed<NamedItem[]> {
  let members: List;
  try {
    members = parseList(value.trim());
  } catch (err) {
    return { ok: false, why: `${field} is not a Structured Field List: ${(err as Error).message}` };
  }
  if (members.length === 0) return { ok: false, why: `${field} is empty` };
  if (members.some(isInnerList)) return { ok: false, why: `${field} holds an inner list, not items` };
  const out: NamedItem[] = [];
  for (const [v, params] of members as Item[]) {
    const name = nameOf(v);
    if (name === undefined) return { ok: false, why: `a ${field} item is neither a String nor a Token` };
    const pk = params.get('pk');
    if (pk !== undefined && !(pk instanceof ArrayBuffer)) return { ok: false, why: `${label} "${name}" has a pk that is not a Byte Sequence` };
    out.push({ name, params: Object.fromEntries(params), ...(pk instanceof ArrayBuffer && { partitionKeyBytes: pk.byteLength }) });
  }
  return { ok: true, value: out };
}

/** `RateLimit-Policy: "default";q=100;w=60` — each item a policy named by a String or Token. */
export function parseRateLimitPolicy(value: string): Parsed<QuotaPolicy[]> {
  const parsed = namedItems(value, 'RateLimit-Policy', 'policy');
  if (!parsed.ok) return parsed;
  const out: QuotaPolicy[] = [];
  for (const { name, params: { q, qu, w }, partitionKeyBytes } of parsed.value) {
    if (!isNonNegInt(q)) return { ok: false, why: `policy "${name}" has no non-negative integer q` };
    if (w !== undefined && !(isNonNegInt(w) && w > 0)) return { ok: false, why: `policy "${name}" has a w that is not a positive integer` };
    if (qu !== undefined && typeof qu !== 'string') return { ok: false, why: `policy "${name}" has a qu that is not a String` };
    out.push({ name, quota: q, unit: qu ?? 'requests', ...(w !== undefined && { windowS: w }), ...(partitionKeyBytes !== undefined && { partitionKeyBytes }) });
  }
  return { ok: true, value: out };
}

/** `RateLimit: "default";r=50;t=30`. */
export function parseRateLimit(value: string): Parsed<QuotaState[]> {
  const parsed = namedItems(value, 'RateLimit', 'RateLimit');
  if (!parsed.ok) return parsed;
  const out: QuotaState[] = [];
  for (const { name, params: { r, t }, partitionKeyBytes } of parsed.value) {
    if (!isNonNegInt(r)) return { ok: false, why: `RateLimit "${name}" has no non-negative integer r` };
    if (t !== undefined && !isNonNegInt(t)) return { ok: false, why: `RateLimit "${name}" has a t that is not a non-negative integer` };
    out.push({ name, remaining: r, ...(t !== undefined && { resetS: t }), ...(partitionKeyBytes !== undefined && { partitionKeyBytes }) });
  }
  return { ok: true, value: out };
}

export interface LegacyFields {
  /** RateLimit-Limit (or X-): the first number; older drafts allowed `100, 100;w=60`. */
  limit?: number;
  /** A window from a `;w=` on the limit, as drafts -00 to -03 wrote it. */
  windowS?: number;
  remaining?: number;
  /** The Reset value as sent: delta seconds, or (X- fields, commonly) an epoch time. */
  reset?: number;
  /** Which family: `RateLimit-*` (drafts up to -06) or `X-RateLimit-*`. */
  family: 'RateLimit-*' | 'X-RateLimit-*';
}

/** The three-field family; undefined when none of its fields is present. */
export function parseLegacyFields(headers: Record<string, string | undefined>, prefix: 'ratelimit-' | 'x-ratelimit-'): LegacyFields | undefined {
  const limit = headers[`${prefix}limit`];
  const remaining = headers[`${prefix}remaining`];
  const reset = headers[`${prefix}reset`];
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined;
  const num = (v: string | undefined) => {
    const m = v === undefined ? null : /^\s*(\d+(?:\.\d+)?)/.exec(v);
    return m ? Number(m[1]) : undefined;
  };
  const w = limit === undefined ? null : /;\s*w=(\d+)/.exec(limit);
  const out: LegacyFields = { family: prefix === 'ratelimit-' ? 'RateLimit-*' : 'X-RateLimit-*' };
  const l = num(limit);
  const r = num(remaining);
  const t = num(reset);
  if (l !== undefined) out.limit = l;
  if (w) out.windowS = Number(w[1]);
  if (r !== undefined) out.remaining = r;
  if (t !== undefined) out.reset = t;
  return out;
}

const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

export type RetryAfter = { ok: true; seconds: number; form: 'delay-seconds' | 'HTTP-date' } | { ok: false; why: string };

/**
 * RFC 9110 §10.2.3: "Retry-After = HTTP-date / delay-seconds". An HTTP-date is measured against the
 * reply's own Date field when present (no clock skew), else against `nowMs`.
 */
export function parseRetryAfter(value: string | undefined, dateField?: string, nowMs = Date.now()): RetryAfter {
  if (value === undefined) return { ok: false, why: 'absent' };
  const v = value.trim();
  if (/^\d+$/.test(v)) return { ok: true, seconds: Number(v), form: 'delay-seconds' };
  if (IMF_FIXDATE.test(v) && !Number.isNaN(Date.parse(v))) {
    const base = dateField !== undefined && !Number.isNaN(Date.parse(dateField)) ? Date.parse(dateField) : nowMs;
    return { ok: true, seconds: Math.max(0, (Date.parse(v) - base) / 1000), form: 'HTTP-date' };
  }
  return { ok: false, why: `${JSON.stringify(v.slice(0, 60))} is neither delay-seconds nor an HTTP-date` };
}

// ---------------------------------------------------------------------------------------------------
// What the fields say, next to what was measured

export interface HeaderFindings {
  /** The fields as sent on a 2xx and on a 429 (rate-limit fields only; pk values replaced by their length). */
  seen: { on2xx: Record<string, string>; on429: Record<string, string> };
  policy?: Parsed<QuotaPolicy[]>;
  state2xx?: Parsed<QuotaState[]>;
  state429?: Parsed<QuotaState[]>;
  legacy: LegacyFields[];
  /** Each comparison of a field with the measurement, in words, with whether it agrees. */
  agreement: Array<{ what: string; header: number; measured: number; agrees: boolean }>;
}

/** Byte sequences (`:base64:`) in a field value replaced by their length, so no partition key is reported. */
export function maskByteSequences(value: string): string {
  return value.replace(/:([A-Za-z0-9+/]*={0,2}):/g, (_all, b64: string) => `:<${Buffer.from(b64, 'base64').length} bytes>:`);
}

const within = (a: number, b: number, tolerance: number) => Math.abs(a - b) <= tolerance * Math.max(Math.abs(b), 1e-9);

/**
 * Reads the fields of a 2xx and a 429 and sets them against the measured burst and sustained rate: the
 * quota is what a window admits, a token bucket's capacity or its refill over the window, whichever is
 * more (q vs max(burst, rate × w)), and q/w is the rate a window allows (vs the sustained rate).
 * `tolerance` is a fraction (0.1 = 10 %).
 */
export function headerFindings(
  on2xx: Record<string, string | undefined> | undefined,
  on429: Record<string, string | undefined> | undefined,
  measured: { burst?: number; ratePerSecond?: number; retryAfterS?: number },
  tolerance: number,
): HeaderFindings {
  const clean = (h: Record<string, string | undefined> | undefined) =>
    Object.fromEntries(Object.entries(h ?? {}).filter(([k, v]) => v !== undefined && k !== 'date').map(([k, v]) => [k, maskByteSequences(v!)]));
  const findings: HeaderFindings = { seen: { on2xx: clean(on2xx), on429: clean(on429) }, legacy: [], agreement: [] };
  const policyValue = on2xx?.['ratelimit-policy'] ?? on429?.['ratelimit-policy'];
  if (policyValue !== undefined) findings.policy = parseRateLimitPolicy(policyValue);
  if (on2xx?.ratelimit !== undefined) findings.state2xx = parseRateLimit(on2xx.ratelimit);
  if (on429?.ratelimit !== undefined) findings.state429 = parseRateLimit(on429.ratelimit);
  for (const prefix of ['ratelimit-', 'x-ratelimit-'] as const) {
    const legacy = parseLegacyFields({ ...on429, ...on2xx }, prefix);
    if (legacy) findings.legacy.push(legacy);
  }

  const policy = findings.policy?.ok ? findings.policy.value.find((p) => p.unit === 'requests') : undefined;
  if (policy && measured.burst !== undefined) {
    // A bucket refilling faster than its burst per window admits its refill: "q=20;w=1" of a 50/s bucket is wrong.
    const window = policy.windowS !== undefined && measured.ratePerSecond !== undefined ? measured.ratePerSecond * policy.windowS : 0;
    const admits = Math.max(measured.burst, window);
    const what = window > measured.burst ? 'RateLimit-Policy q (quota) vs measured rate × w (it exceeds the burst)' : 'RateLimit-Policy q (quota) vs measured burst';
    findings.agreement.push({ what, header: policy.quota, measured: admits, agrees: within(admits, policy.quota, tolerance) });
  }
  if (policy?.windowS && measured.ratePerSecond !== undefined) {
    const rate = policy.quota / policy.windowS;
    findings.agreement.push({ what: 'RateLimit-Policy q/w (requests/s) vs measured sustained rate', header: rate, measured: measured.ratePerSecond, agrees: within(measured.ratePerSecond, rate, tolerance) });
  }
  const state429 = findings.state429?.ok ? findings.state429.value[0] : undefined;
  if (state429 && measured.retryAfterS !== undefined && state429.resetS !== undefined) {
    findings.agreement.push({ what: 'RateLimit t on a 429 vs its Retry-After (s)', header: state429.resetS, measured: measured.retryAfterS, agrees: state429.resetS === measured.retryAfterS });
  }
  if (state429) {
    findings.agreement.push({ what: 'RateLimit r on a 429 (remaining; 0 expected)', header: state429.remaining, measured: 0, agrees: state429.remaining === 0 });
  }
  for (const legacy of findings.legacy) {
    if (legacy.limit !== undefined && measured.burst !== undefined) {
      findings.agreement.push({ what: `${legacy.family === 'RateLimit-*' ? 'RateLimit-Limit' : 'X-RateLimit-Limit'} vs measured burst`, header: legacy.limit, measured: measured.burst, agrees: within(measured.burst, legacy.limit, tolerance) });
    }
  }
  return findings;
}
