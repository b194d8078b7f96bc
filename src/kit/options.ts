/**
 * Typed validation of option values, for every command of the project: numbers with their range, http(s)
 * URLs, `Name: value` headers, comma lists, choices. Each reader returns the typed value (or undefined when
 * the option was not given) and throws a UsageError naming the option and what it accepts; the command's
 * main() (src/kit/main.ts) prints that with the usage and exits 2.
 */

/** Bad input on the command line: `error: <message>` and the usage on stderr, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface NumberSpec {
  /** Whole numbers only (digits: no sign, no fraction, no exponent). */
  integer?: boolean;
  /** Above 0 (a rate, a duration): 0 itself is refused. */
  positive?: boolean;
  /** Inclusive bounds. */
  min?: number;
  max?: number;
  /** Said after the range: "from 100 to 600000 milliseconds". */
  unit?: string;
}

const WHOLE = /^\d+$/;
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;

/** "a whole number from 1 to 300", "a positive number up to 50000 seconds", "a number of at least 0.5". */
export function describeNumber(spec: NumberSpec): string {
  const kind = `${spec.positive ? 'a positive ' : 'a '}${spec.integer ? 'whole number' : 'number'}`;
  const range = rangeText(spec);
  return range ? `${kind} ${range}` : kind;
}

function rangeText({ min, max, unit }: NumberSpec): string {
  const range = min !== undefined && max !== undefined ? `from ${min} to ${max}`
    : max !== undefined ? `up to ${max}`
    : min !== undefined ? `of at least ${min}` : '';
  return unit ? `${range || 'in'} ${unit}` : range;
}

/**
 * A numeric option: plain decimal digits (an empty string, a sign, an exponent, `Infinity` are not
 * numbers), then its range. Returns `fallback` when the option was not given.
 */
export function numberOption(name: string, raw: string | undefined, spec: NumberSpec & { fallback: number }): number;
export function numberOption(name: string, raw: string | undefined, spec: NumberSpec & { fallback?: undefined }): number | undefined;
export function numberOption(name: string, raw: string | undefined, spec: NumberSpec & { fallback?: number }): number | undefined {
  if (raw === undefined) return spec.fallback;
  if (!(spec.integer ? WHOLE : DECIMAL).test(raw)) throw new UsageError(`${name} must be ${describeNumber(spec)} (got "${raw}")`);
  const value = Number(raw);
  if ((spec.integer && !Number.isSafeInteger(value)) || (spec.positive && value <= 0)) throw new UsageError(`${name} must be ${describeNumber(spec)} (got "${raw}")`);
  if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) throw new UsageError(`${name} must be ${rangeText(spec)} (got "${raw}")`);
  return value;
}

/** A TCP port to listen on: 0 (any free port) to 65535. */
export function portOption(name: string, raw: string | undefined, fallback: number): number {
  return numberOption(name, raw, { integer: true, min: 0, max: 65535, fallback });
}

/** An absolute URL whose protocol is one of `protocols` (default http and https). */
export function urlOption(name: string, raw: string | undefined, protocols: readonly string[] = ['http:', 'https:']): string | undefined {
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw) || !protocols.includes(new URL(raw).protocol)) {
    const kind = protocols.length === 2 && protocols.includes('http:') && protocols.includes('https:') ? 'http(s)' : protocols.map((p) => `${p}//`).join(' or ');
    throw new UsageError(`${name} must be an ${kind} URL (got "${raw}")`);
  }
  return raw;
}

// RFC 9110 token characters: a field name.
const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/;

/** Repeated `Name: value` options as a header map, names lower-cased (a later one wins). */
export function headerOption(name: string, raws: readonly string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const raw of raws ?? []) {
    const m = HEADER.exec(raw);
    if (!m) throw new UsageError(`${name} must look like 'Name: value' (got "${raw}")`);
    headers[m[1]!.toLowerCase()] = m[2]!;
  }
  return headers;
}

/**
 * A comma-separated (and possibly repeated) list: items trimmed, empty ones and repeats dropped. Given but
 * empty is a usage error ("--only needs at least one requirement id or prefix"); not given is undefined.
 */
export function listOption(name: string, raw: string | readonly string[] | undefined, item: string): string[] | undefined {
  if (raw === undefined) return undefined;
  const items = [...new Set((typeof raw === 'string' ? [raw] : raw).flatMap((r) => r.split(',')).map((s) => s.trim()).filter(Boolean))];
  if (items.length === 0) throw new UsageError(`${name} needs at least one ${item}`);
  return items;
}

/** "a", "a or b", "a, b or c". */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** One of a fixed set of words. */
export function enumOption<const C extends string>(name: string, raw: string | undefined, choices: readonly C[]): C | undefined {
  if (raw === undefined) return undefined;
  if (!(choices as readonly string[]).includes(raw)) throw new UsageError(`${name} must be ${orList(choices)} (got "${raw}")`);
  return raw as C;
}

/** A secret (a key, a token) from its option or else its environment variable; an empty variable counts as unset. */
export function secretOption(name: string, raw: string | undefined, envName: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (raw !== undefined) {
    if (raw.trim() === '') throw new UsageError(`${name} is empty (leave it out, or set ${envName})`);
    return raw;
  }
  return env[envName] || undefined;
}
