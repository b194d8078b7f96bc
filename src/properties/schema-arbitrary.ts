import fc from 'fast-check';
import { anyCodePoint } from './code-points.js';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isObject } from '../tool-result.js';

/**
 * Arbitraries of values that a JSON Schema accepts, and of values it refuses, for the schemas tools publish
 * as `inputSchema`. There is no maintained JSON-Schema-to-fast-check library (json-schema-fast-check has been
 * archived since 2022), so this covers the subset tools use: type (object, string, integer, number, boolean,
 * array, null, or a list), enum, const, properties, required, additionalProperties, min/maxLength,
 * minimum/maximum/exclusive*, multipleOf, min/maxItems, items, uniqueItems, format (date-time, date, time,
 * email, uri, uuid, ipv4, hostname), simple patterns, default, anyOf/oneOf/allOf.
 *
 * The generators aim at the right side, but a generator is not the judge: `schemaValidator` (ajv, in the
 * schema's dialect, with ajv-formats) says what is valid, and the properties classify every value with it.
 */

export type JsonSchema = boolean | Record<string, unknown>;

/** A value the schema should refuse, with what was done to make it so (for reports). */
export interface InvalidValue {
  value: unknown;
  mutation: string;
}

export interface SchemaArbitraryOptions {
  /** Values to mix in for object properties of these names (ids a profile's setup captured, say). */
  hints?: Record<string, unknown[]>;
  /** Longest string generated where the schema sets no maxLength (default 24). */
  maxStringLength?: number;
  /** Longest string generated at all (boundary cases of a large maxLength included; default 25 000). */
  maxBoundaryLength?: number;
  /** Invalid values: also a wrong JSON type for the root itself (default false: tool arguments are objects). */
  rootTypeMutations?: boolean;
}

type Schema = Record<string, any>;
type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';
const ALL_TYPES: JsonType[] = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];
const MAX_DEPTH = 4;

// ---------------------------------------------------------------------------------------------------------
// The judge: ajv in the schema's dialect.

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;
const validators = new Map<string, Ajv | Ajv2020>();

function ajvFor(dialect: 'draft-07' | '2020-12'): Ajv | Ajv2020 {
  let ajv = validators.get(dialect);
  if (!ajv) {
    ajv = dialect === 'draft-07' ? new Ajv({ strict: false, allErrors: false }) : new Ajv2020({ strict: false, allErrors: false });
    addFormats.default(ajv);
    validators.set(dialect, ajv);
  }
  return ajv;
}

export type SchemaValidator = ((value: unknown) => boolean) & { errors(value: unknown): string };

/** Compiles a schema with ajv (2020-12 unless `$schema` names draft-06/07); throws when it does not compile. */
export function schemaValidator(schema: JsonSchema): SchemaValidator {
  const dialect = isObject(schema) && typeof schema.$schema === 'string' && DRAFT_07.test(schema.$schema) ? 'draft-07' : '2020-12';
  const ajv = ajvFor(dialect);
  let validate;
  try {
    validate = ajv.compile(schema);
  } finally {
    // Tools may share an `$id`: each schema is compiled on its own.
    if (typeof schema === 'object') ajv.removeSchema(schema);
  }
  const fn = ((value: unknown) => validate(value) as boolean) as SchemaValidator;
  fn.errors = (value) => (validate(value) ? '' : ajv.errorsText(validate.errors));
  return fn;
}

// ---------------------------------------------------------------------------------------------------------
// Schema reading.

/** Folds allOf into one schema (shallow: properties merged, required united). */
function flatten(s: Schema): Schema {
  if (!Array.isArray(s.allOf)) return s;
  const { allOf, ...rest } = s;
  let out: Schema = rest;
  for (const part of allOf) if (isObject(part)) out = merge(out, flatten(part));
  return out;
}

function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  if (isObject(a.properties) || isObject(b.properties)) out.properties = { ...a.properties, ...b.properties };
  if (Array.isArray(a.required) || Array.isArray(b.required)) out.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  return out;
}

/** The JSON types a schema admits, explicit or inferred from its keywords (undefined: any). */
function typesOf(s: Schema): JsonType[] | undefined {
  if (typeof s.type === 'string') return [s.type as JsonType];
  if (Array.isArray(s.type)) return s.type as JsonType[];
  if ('properties' in s || 'required' in s || 'additionalProperties' in s) return ['object'];
  if ('items' in s || 'minItems' in s || 'maxItems' in s || 'prefixItems' in s) return ['array'];
  if ('minLength' in s || 'maxLength' in s || 'pattern' in s || 'format' in s) return ['string'];
  if ('minimum' in s || 'maximum' in s || 'exclusiveMinimum' in s || 'exclusiveMaximum' in s || 'multipleOf' in s) return ['number'];
  return undefined;
}

/** Whether a value of `t` satisfies a type list (an integer is a number). */
function admits(types: JsonType[], t: JsonType): boolean {
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

interface Bounds {
  lo?: number;
  hi?: number;
  loExcl: boolean;
  hiExcl: boolean;
}

function bounds(s: Schema): Bounds {
  const b: Bounds = { loExcl: false, hiExcl: false };
  if (typeof s.minimum === 'number') b.lo = s.minimum;
  if (typeof s.exclusiveMinimum === 'number' && (b.lo === undefined || s.exclusiveMinimum >= b.lo)) {
    b.lo = s.exclusiveMinimum;
    b.loExcl = true;
  } else if (s.exclusiveMinimum === true) b.loExcl = true; // draft-04 style
  if (typeof s.maximum === 'number') b.hi = s.maximum;
  if (typeof s.exclusiveMaximum === 'number' && (b.hi === undefined || s.exclusiveMaximum <= b.hi)) {
    b.hi = s.exclusiveMaximum;
    b.hiExcl = true;
  } else if (s.exclusiveMaximum === true) b.hiExcl = true;
  return b;
}

/** Integer bounds of a schema, inclusive, within the safe integers. */
function integerRange(s: Schema): { min: number; max: number } {
  const b = bounds(s);
  let min = b.lo === undefined ? -(2 ** 31) : b.loExcl ? Math.floor(b.lo) + 1 : Math.ceil(b.lo);
  let max = b.hi === undefined ? 2 ** 31 - 1 : b.hiExcl ? Math.ceil(b.hi) - 1 : Math.floor(b.hi);
  min = Math.max(min, Number.MIN_SAFE_INTEGER);
  max = Math.min(max, Number.MAX_SAFE_INTEGER);
  return { min, max };
}

function regex(pattern: unknown): RegExp | undefined {
  if (typeof pattern !== 'string') return undefined;
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/** Code points, as JSON Schema counts string length. */
const codePoints = (s: string) => [...s].length;

// ---------------------------------------------------------------------------------------------------------
// Valid values.

interface Ctx {
  hints: Record<string, unknown[]>;
  maxStringLength: number;
  maxBoundaryLength: number;
}

function ctxOf(options: SchemaArbitraryOptions): Ctx {
  return { hints: options.hints ?? {}, maxStringLength: options.maxStringLength ?? 24, maxBoundaryLength: options.maxBoundaryLength ?? 25_000 };
}

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/);
const ascii = fc.string({ unit: 'binary-ascii' });

/** Strings of an exact length in code points: ASCII, or any Unicode code point. */
function stringOfLength(n: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'binary-ascii', minLength: n, maxLength: n }),
    fc.string({ unit: anyCodePoint, minLength: n, maxLength: n }),
  );
}

function formatted(format: string): fc.Arbitrary<string> | undefined {
  const date = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true });
  switch (format) {
    case 'date-time':
      return fc.oneof(
        date.map((d) => d.toISOString()),
        // The same instant written with a numeric offset (RFC 3339 allows either).
        fc.tuple(date, fc.constantFrom(-300, -240, 60, 120, 330)).map(([d, off]) => {
          const local = new Date(d.getTime() + off * 60_000).toISOString().slice(0, 19);
          const sign = off < 0 ? '-' : '+';
          const abs = Math.abs(off);
          return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        }),
      );
    case 'date':
      return date.map((d) => d.toISOString().slice(0, 10));
    case 'time':
      return date.map((d) => `${d.toISOString().slice(11, 19)}Z`);
    case 'email':
      return fc.tuple(label, label, fc.constantFrom('com', 'org', 'example', 'io')).map(([user, host, tld]) => `${user}@${host}.${tld}`);
    case 'uri':
    case 'iri':
    case 'uri-reference':
    case 'iri-reference':
    case 'url':
      return fc.tuple(fc.constantFrom('https', 'http'), label, fc.constantFrom('com', 'example', 'net'), fc.array(label, { maxLength: 3 }))
        .map(([scheme, host, tld, path]) => `${scheme}://${host}.${tld}/${path.join('/')}`);
    case 'uuid':
      return fc.uuid();
    case 'ipv4':
      return fc.ipV4();
    case 'hostname':
      return fc.tuple(label, fc.constantFrom('com', 'example', 'net')).map(([h, tld]) => `${h}.${tld}`);
    default:
      return undefined;
  }
}

function validString(s: Schema, ctx: Ctx): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : undefined;
  const fits = (v: string) => codePoints(v) >= min && (max === undefined || codePoints(v) <= max);
  if (typeof s.format === 'string') {
    const f = formatted(s.format);
    if (f) return f;
  }
  const re = regex(s.pattern);
  if (re) {
    let matching: fc.Arbitrary<string>;
    try {
      matching = fc.stringMatching(re);
    } catch {
      matching = fc.string().filter((v) => re.test(v));
    }
    return matching.filter(fits);
  }
  const upper = Math.min(max ?? min + ctx.maxStringLength, min + ctx.maxStringLength);
  const common = fc.oneof(
    fc.string({ unit: 'binary-ascii', minLength: min, maxLength: upper }),
    fc.string({ unit: anyCodePoint, minLength: min, maxLength: upper }),
  );
  const edges: fc.Arbitrary<string>[] = [stringOfLength(min)];
  if (max !== undefined && max <= ctx.maxBoundaryLength) edges.push(stringOfLength(max));
  return fc.oneof({ arbitrary: common, weight: 4 }, { arbitrary: fc.oneof(...edges), weight: 1 });
}

function validInteger(s: Schema): fc.Arbitrary<number> {
  const { min, max } = integerRange(s);
  if (min > max) return fc.constant(min); // an empty range: the judge will say so
  const m = typeof s.multipleOf === 'number' && Number.isInteger(s.multipleOf) && s.multipleOf > 0 ? s.multipleOf : 1;
  const kMin = Math.ceil(min / m);
  const kMax = Math.floor(max / m);
  if (kMin > kMax) return fc.constant(min);
  const ks = fc.oneof(
    { arbitrary: fc.integer({ min: kMin, max: kMax }), weight: 4 },
    { arbitrary: fc.constantFrom(kMin, kMax, Math.min(kMax, Math.max(kMin, 0))), weight: 1 },
  );
  return ks.map((k) => k * m);
}

function validNumber(s: Schema): fc.Arbitrary<number> {
  const b = bounds(s);
  if (typeof s.multipleOf === 'number') return validInteger({ ...s, multipleOf: Number.isInteger(s.multipleOf) ? s.multipleOf : 1 });
  const doubles = fc.double({
    noNaN: true, noDefaultInfinity: true,
    ...(b.lo !== undefined && { min: b.lo, minExcluded: b.loExcl }),
    ...(b.hi !== undefined && { max: b.hi, maxExcluded: b.hiExcl }),
  });
  return fc.oneof(doubles, validInteger(s));
}

function validArray(s: Schema, ctx: Ctx, depth: number): fc.Arbitrary<unknown[]> {
  const minItems = typeof s.minItems === 'number' ? s.minItems : 0;
  const maxItems = Math.min(typeof s.maxItems === 'number' ? s.maxItems : minItems + 4, minItems + 6);
  const prefix: unknown[] = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.items) ? (s.additionalItems ?? true) : (s.items ?? true);
  const head = fc.tuple(...prefix.map((p) => valid(p as JsonSchema, ctx, depth + 1)));
  const tailMin = Math.max(0, minItems - prefix.length);
  const tailMax = Math.max(tailMin, maxItems - prefix.length);
  const item = valid(rest as JsonSchema, ctx, depth + 1);
  const tail = s.uniqueItems === true
    ? fc.uniqueArray(item, { minLength: tailMin, maxLength: tailMax, selector: (v) => JSON.stringify(v) })
    : fc.array(item, { minLength: tailMin, maxLength: tailMax });
  return fc.tuple(head, tail).map(([h, t]) => [...h, ...t]);
}

function validObject(s: Schema, ctx: Ctx, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props: Record<string, JsonSchema> = isObject(s.properties) ? s.properties : {};
  const required: string[] = Array.isArray(s.required) ? s.required.filter((k: unknown) => typeof k === 'string') : [];
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(props)) {
    const own = valid(sub, ctx, depth + 1);
    const hinted = ctx.hints[name]?.filter((h) => h !== undefined);
    shape[name] = hinted && hinted.length > 0 ? fc.oneof({ arbitrary: own, weight: 1 }, { arbitrary: fc.constantFrom(...hinted), weight: 1 }) : own;
  }
  for (const name of required) if (!(name in shape)) shape[name] = valid(true, ctx, depth + 1);
  const record = fc.record(shape, { requiredKeys: required });
  if (s.additionalProperties === false) return record;
  // Members the schema does not name are allowed (or constrained by additionalProperties): a few, sometimes.
  const extraKey = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,11}$/).filter((k) => !(k in props));
  const extras = fc.dictionary(extraKey, valid(isObject(s.additionalProperties) ? s.additionalProperties : true, ctx, depth + 1), { maxKeys: 2 });
  return fc.oneof({ arbitrary: record, weight: 4 }, { arbitrary: fc.tuple(record, extras).map(([r, e]) => ({ ...e, ...r })), weight: 1 });
}

function anyJson(depth: number): fc.Arbitrary<unknown> {
  return depth >= MAX_DEPTH ? fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), ascii) : fc.jsonValue({ maxDepth: 2 });
}

function byType(t: JsonType, s: Schema, ctx: Ctx, depth: number): fc.Arbitrary<unknown> {
  switch (t) {
    case 'null': return fc.constant(null);
    case 'boolean': return fc.boolean();
    case 'integer': return validInteger(s);
    case 'number': return validNumber(s);
    case 'string': return validString(s, ctx);
    case 'array': return depth >= MAX_DEPTH ? fc.constant([]) : validArray(s, ctx, depth);
    case 'object': return depth >= MAX_DEPTH ? fc.constant({}) : validObject(s, ctx, depth);
    default: return anyJson(depth);
  }
}

function valid(schema: JsonSchema, ctx: Ctx, depth: number): fc.Arbitrary<unknown> {
  if (schema === true || !isObject(schema)) return anyJson(depth);
  const s = flatten(schema);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum);
  const alternatives = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
  let arb: fc.Arbitrary<unknown>;
  if (alternatives && alternatives.length > 0) {
    const { anyOf: _a, oneOf: _o, ...base } = s;
    arb = fc.oneof(...alternatives.map((alt: JsonSchema) => valid(isObject(alt) ? merge(base, flatten(alt)) : alt, ctx, depth)));
  } else {
    const types = typesOf(s);
    arb = types ? fc.oneof(...types.map((t) => byType(t, s, ctx, depth))) : anyJson(depth);
  }
  return 'default' in s ? fc.oneof({ arbitrary: arb, weight: 4 }, { arbitrary: fc.constant(s.default), weight: 1 }) : arb;
}

/** Values the schema accepts (aimed at: classify them with `schemaValidator`). */
export function validValues(schema: JsonSchema, options: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  return valid(schema, ctxOf(options), 0);
}

// ---------------------------------------------------------------------------------------------------------
// Invalid values: one defect each, in a value otherwise valid.

/** One value of each JSON type, to pick a wrong one from. */
const SAMPLES: Record<JsonType, fc.Arbitrary<unknown>> = {
  null: fc.constant(null),
  boolean: fc.boolean(),
  integer: fc.integer({ min: -1000, max: 1000 }),
  number: fc.double({ min: -1000, max: 1000, noNaN: true }).filter((x) => !Number.isInteger(x)),
  string: fc.oneof(fc.constantFrom('', 'true', '1', 'null'), fc.string({ maxLength: 8 })),
  array: fc.oneof(fc.constant([]), fc.array(fc.integer(), { minLength: 1, maxLength: 3 })),
  object: fc.oneof(fc.constant({}), fc.dictionary(label, fc.integer(), { minKeys: 1, maxKeys: 2 })),
};

function wrongType(types: JsonType[]): fc.Arbitrary<InvalidValue> | undefined {
  const wrong = ALL_TYPES.filter((t) => !admits(types, t));
  if (wrong.length === 0) return undefined;
  return fc.constantFrom(...wrong).chain((t) => SAMPLES[t].map((value) => ({ value, mutation: `${t === 'number' ? 'a fractional number' : t === 'integer' || t === 'array' || t === 'object' ? `an ${t}` : t === 'null' ? 'null' : `a ${t}`} where ${types.join(' or ')} is expected` })));
}

const BAD_FORMATS: Record<string, string[]> = {
  'date-time': ['not a date', '2024-13-01T00:00:00Z', '2024-01-01 25:00', '2024-02-30T10:00:00Z', '2024-01-01'],
  date: ['2024-13-01', '01/02/2024', 'yesterday'],
  time: ['25:00:00Z', 'noon'],
  email: ['no-at-sign', '@example.com', 'a@'],
  uri: ['not a uri', '//no-scheme', 'http://exa mple.com'],
  url: ['not a url'],
  uuid: ['not-a-uuid', '1234'],
  ipv4: ['256.1.1.1', '1.2.3'],
  hostname: ['-bad-.example', 'a..b'],
};

function invalidString(s: Schema): fc.Arbitrary<InvalidValue>[] {
  const out: fc.Arbitrary<InvalidValue>[] = [];
  if (typeof s.maxLength === 'number') {
    const n = s.maxLength;
    out.push(fc.integer({ min: 1, max: 8 }).chain((extra) => stringOfLength(n + extra)).map((value) => ({ value, mutation: `a string of ${codePoints(value)} characters (maxLength ${n})` })));
  }
  if (typeof s.minLength === 'number' && s.minLength > 0) {
    const n = s.minLength;
    out.push(fc.integer({ min: 0, max: n - 1 }).chain(stringOfLength).map((value) => ({ value, mutation: `a string of ${codePoints(value)} characters (minLength ${n})` })));
  }
  const re = regex(s.pattern);
  if (re) out.push(fc.string({ maxLength: 12 }).filter((v) => !re.test(v)).map((value) => ({ value, mutation: `a string not matching ${s.pattern}` })));
  const bad = typeof s.format === 'string' ? BAD_FORMATS[s.format] : undefined;
  if (bad) out.push(fc.constantFrom(...bad).map((value) => ({ value, mutation: `not a ${s.format}` })));
  return out;
}

function invalidNumber(s: Schema, integer: boolean): fc.Arbitrary<InvalidValue>[] {
  const out: fc.Arbitrary<InvalidValue>[] = [];
  const b = bounds(s);
  if (b.lo !== undefined) {
    const lo = b.lo;
    out.push((b.loExcl ? fc.constant(lo) : fc.integer({ min: 1, max: 1000 }).map((d) => lo - d)).map((value) => ({ value, mutation: `${value}, below the ${b.loExcl ? 'exclusive ' : ''}minimum ${lo}` })));
  }
  if (b.hi !== undefined) {
    const hi = b.hi;
    out.push((b.hiExcl ? fc.constant(hi) : fc.integer({ min: 1, max: 1000 }).map((d) => hi + d)).map((value) => ({ value, mutation: `${value}, above the ${b.hiExcl ? 'exclusive ' : ''}maximum ${hi}` })));
  }
  if (integer) {
    const { min, max } = integerRange(s);
    if (min < max) out.push(fc.integer({ min, max: max - 1 }).map((k) => ({ value: k + 0.5, mutation: `${k + 0.5}, not an integer` })));
  }
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
    const m = s.multipleOf;
    const { min, max } = integerRange(s);
    const candidates = [min, min + 1, max, max - 1].filter((v) => v >= min && v <= max && Math.abs(v / m - Math.round(v / m)) > 1e-9);
    if (candidates.length > 0) out.push(fc.constantFrom(...candidates).map((value) => ({ value, mutation: `${value}, not a multiple of ${m}` })));
  }
  return out;
}

function invalidArray(s: Schema, ctx: Ctx, depth: number): fc.Arbitrary<InvalidValue>[] {
  const out: fc.Arbitrary<InvalidValue>[] = [];
  const base = validArray(s, ctx, depth);
  if (typeof s.maxItems === 'number') {
    const n = s.maxItems;
    const item = valid(Array.isArray(s.items) ? true : (s.items ?? true), ctx, depth + 1);
    out.push(fc.array(item, { minLength: n + 1, maxLength: n + 3 }).map((value) => ({ value, mutation: `${value.length} items (maxItems ${n})` })));
  }
  if (typeof s.minItems === 'number' && s.minItems > 0) {
    const n = s.minItems;
    out.push(base.map((a) => a.slice(0, n - 1)).map((value) => ({ value, mutation: `${value.length} items (minItems ${n})` })));
  }
  if (isObject(s.items) || s.items === false) {
    const bad = invalid(s.items, ctx, depth + 1, true);
    if (bad) {
      out.push(fc.tuple(base, bad, fc.nat()).map(([a, b, i]) => {
        const value = [...a];
        const at = value.length === 0 ? 0 : i % value.length;
        value[at] = b.value;
        return { value, mutation: `item ${at}: ${b.mutation}` };
      }));
    }
  }
  if (s.uniqueItems === true) {
    out.push(base.filter((a) => a.length > 0).map((a) => ({ value: [...a, a[0]], mutation: 'a repeated item (uniqueItems)' })));
  }
  return out;
}

function invalidObject(s: Schema, ctx: Ctx, depth: number): fc.Arbitrary<InvalidValue>[] {
  const out: fc.Arbitrary<InvalidValue>[] = [];
  const props: Record<string, JsonSchema> = isObject(s.properties) ? s.properties : {};
  const required: string[] = Array.isArray(s.required) ? s.required.filter((k: unknown) => typeof k === 'string') : [];
  const base = validObject(s, ctx, depth);
  if (required.length > 0) {
    out.push(fc.tuple(base, fc.constantFrom(...required)).map(([o, k]) => {
      const { [k]: _dropped, ...value } = o;
      return { value, mutation: `required property "${k}" missing` };
    }));
  }
  if (s.additionalProperties === false || isObject(s.additionalProperties)) {
    const extraKey = fc.oneof(fc.constantFrom('extra', 'conformanceExtra', 'id', 'type'), fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,11}$/)).filter((k) => !(k in props));
    const extraValue = s.additionalProperties === false ? anyJson(depth + 1) : invalid(s.additionalProperties, ctx, depth + 1, true)?.map((v) => v.value);
    if (extraValue) {
      out.push(fc.tuple(base, extraKey, extraValue).map(([o, k, v]) => ({
        value: { ...o, [k]: v },
        mutation: s.additionalProperties === false ? `an extra property "${k}" (additionalProperties: false)` : `an extra property "${k}" the additionalProperties schema refuses`,
      })));
    }
  }
  // One property spoiled: each declared property as likely as any other defect.
  for (const [name, sub] of Object.entries(props)) {
    const bad = invalid(sub, ctx, depth + 1, true);
    if (!bad) continue;
    out.push(fc.tuple(base, bad).map(([o, b]) => ({ value: { ...o, [name]: b.value }, mutation: `${name}: ${b.mutation}` })));
  }
  return out;
}

function invalid(schema: JsonSchema, ctx: Ctx, depth: number, typeMutations: boolean): fc.Arbitrary<InvalidValue> | undefined {
  if (schema === false) return anyJson(depth).map((value) => ({ value, mutation: 'any value (the schema is false)' }));
  if (!isObject(schema) || depth > MAX_DEPTH) return undefined;
  const s = flatten(schema);
  const out: fc.Arbitrary<InvalidValue>[] = [];
  if ('const' in s) {
    out.push(fc.jsonValue({ maxDepth: 1 }).filter((v) => JSON.stringify(v) !== JSON.stringify(s.const)).map((value) => ({ value, mutation: `not the constant ${JSON.stringify(s.const)}` })));
  } else if (Array.isArray(s.enum) && s.enum.length > 0) {
    const members = new Set(s.enum.map((v: unknown) => JSON.stringify(v)));
    const near = s.enum.filter((v: unknown): v is string => typeof v === 'string').flatMap((v: string) => [v.toUpperCase(), `${v} `, v.slice(0, -1)]);
    out.push(fc.oneof(...(near.length ? [fc.constantFrom(...near)] : []), fc.string({ maxLength: 10 }), fc.integer())
      .filter((v) => !members.has(JSON.stringify(v)))
      .map((value) => ({ value, mutation: `${JSON.stringify(value)}, not one of ${[...members].join(', ')}` })));
  } else if (!Array.isArray(s.anyOf) && !Array.isArray(s.oneOf)) {
    const types = typesOf(s);
    if (types) {
      if (typeMutations) {
        const w = wrongType(types);
        if (w) out.push(w);
      }
      if (types.length === 1) {
        const t = types[0]!;
        if (t === 'string') out.push(...invalidString(s));
        if (t === 'integer' || t === 'number') out.push(...invalidNumber(s, t === 'integer'));
        if (t === 'array' && depth < MAX_DEPTH) out.push(...invalidArray(s, ctx, depth));
        if (t === 'object' && depth < MAX_DEPTH) out.push(...invalidObject(s, ctx, depth));
      }
    }
  } else if (typeMutations) {
    // A union: only a type none of the alternatives admits is surely wrong.
    const alts = (s.anyOf ?? s.oneOf) as JsonSchema[];
    const types = alts.map((a) => (isObject(a) ? typesOf(flatten(a)) : undefined));
    if (types.every((t) => t !== undefined)) {
      const w = wrongType([...new Set(types.flat() as JsonType[])]);
      if (w) out.push(w);
    }
  }
  return out.length === 0 ? undefined : fc.oneof(...out);
}

/**
 * Values the schema refuses, each with one defect: a property of the wrong type, a required property
 * missing, an extra property where additionalProperties is false, a number out of range, a string too long
 * or too short, an enum or const miss, a malformed format, too many or too few items. Undefined when the
 * schema admits everything (nothing can be spoiled).
 */
export function invalidValues(schema: JsonSchema, options: SchemaArbitraryOptions = {}): fc.Arbitrary<InvalidValue> | undefined {
  return invalid(schema, ctxOf(options), 0, options.rootTypeMutations ?? false);
}
