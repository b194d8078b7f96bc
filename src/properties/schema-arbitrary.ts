import fc from 'fast-check';
import { anyCodePoint } from './code-points.js';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { BoundedCache } from '../kit/bounded-cache.js';
import { isObject } from '../mcp/tool-result.js';
import { admittedTypes, alternativesOf, fold, typesOf, view, type JsonSchema, type JsonType, type Schema } from './schema-resolve.js';

/**
 * Arbitraries of values that a JSON Schema accepts, and of values it refuses, for the schemas tools publish
 * as `inputSchema`. There is no maintained JSON-Schema-to-fast-check library (json-schema-fast-check has been
 * archived since 2022), so this covers what tools use: type (object, string, integer, number, boolean,
 * array, null, or a list), enum, const, properties, required, additionalProperties, min/maxLength,
 * minimum/maximum/exclusive*, multipleOf, min/maxItems, items, prefixItems, uniqueItems, formats, patterns,
 * default, anyOf/oneOf/allOf, and local `$ref`s (`$defs`, `definitions`, recursive ones to a depth bound),
 * read through src/properties/schema-resolve.ts.
 *
 * The generators aim at the right side, but a generator is not the judge: `schemaValidator` (ajv, in the
 * schema's dialect, with ajv-formats) says what is valid, and the properties classify every value with it.
 * No generator filters without a bound (a filter on a rarely valid arbitrary never returns): where a
 * generator cannot aim, it tries a few times and hands over what it has, for the judge to refuse, and every
 * search for a valid value has a deadline of its own (src/properties/value-search.ts).
 */

export type { JsonSchema } from './schema-resolve.js';

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

const ALL_TYPES: JsonType[] = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];
/** Below this depth objects get their required properties only and arrays their fewest items, so recursive schemas end. */
const MAX_DEPTH = 4;
/** Below this depth nothing is aimed at any more (a recursion with no way out): the judge refuses what comes. */
const GIVE_UP_DEPTH = MAX_DEPTH + 4;
/** Unions directly inside unions read before giving up. */
const MAX_NESTED_UNIONS = 8;
/** Draws a bounded filter makes before handing over its last value. */
const FILTER_TRIES = 50;

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

/** Validators by schema text: every property check of a run (and every run of a process) reads the same tools. */
const compiledSchemas = new BoundedCache<SchemaValidator>(512);

/** Compiles a schema with ajv (2020-12 unless `$schema` names draft-06/07); throws when it does not compile. */
export function schemaValidator(schema: JsonSchema): SchemaValidator {
  return compiledSchemas.get(JSON.stringify(schema) ?? 'undefined', () => compileValidator(schema));
}

function compileValidator(schema: JsonSchema): SchemaValidator {
  const dialect = isObject(schema) && typeof schema.$schema === 'string' && DRAFT_07.test(schema.$schema) ? 'draft-07' : '2020-12';
  const ajv = ajvFor(dialect);
  const compiled = withoutTypelessNullable(schema);
  let validate;
  try {
    validate = ajv.compile(compiled);
  } finally {
    // Tools may share an `$id`: each schema is compiled on its own.
    if (typeof compiled === 'object') ajv.removeSchema(compiled);
  }
  // A schema whose references recurse without reading data (`A: {anyOf: [A, ...]}`) compiles, then
  // overflows the stack on the values that reach it: such a value is not judged valid.
  const judge = (value: unknown): true | string => {
    try {
      return validate(value) ? true : ajv.errorsText(validate.errors);
    } catch (err) {
      return `the schema cannot judge it (${(err as Error).message})`;
    }
  };
  const fn = ((value: unknown) => judge(value) === true) as SchemaValidator;
  fn.errors = (value) => {
    const verdict = judge(value);
    return verdict === true ? '' : verdict;
  };
  return fn;
}

// ---------------------------------------------------------------------------------------------------------
// Schema reading.

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

/** Keywords whose value is a map of schemas, one schema, or a list of schemas (the places a walk descends to). */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_ONE = ['items', 'additionalItems', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];

/**
 * ajv reads OpenAPI's `nullable` (a `true` adds null to `type`) and refuses to compile it beside no `type`,
 * where OpenAPI 3.0.3 gives it no effect and JSON Schema does not know it: zod-to-json-schema's openApi3
 * output writes `{"allOf": [{"$ref": ...}], "nullable": true}`. Such a `nullable` is left out of what ajv
 * compiles (the same object when there is none, so ajv's cache and `$id`s behave as before).
 */
export function withoutTypelessNullable(schema: JsonSchema): JsonSchema {
  let changed = false;
  const walk = (node: unknown, depth: number): unknown => {
    if (!isObject(node) || depth > 64) return node;
    let out: Record<string, any> = node;
    const set = (k: string, v: unknown) => {
      if (v === out[k]) return;
      if (out === node) out = { ...node };
      out[k] = v;
      changed = true;
    };
    if (typeof node.nullable === 'boolean' && node.type === undefined) {
      out = { ...node };
      delete out.nullable;
      changed = true;
    }
    for (const k of SCHEMA_MAPS) {
      if (!isObject(node[k])) continue;
      const map = Object.fromEntries(Object.entries(node[k]).map(([name, sub]) => [name, walk(sub, depth + 1)]));
      if (Object.keys(map).some((name) => map[name] !== node[k][name])) set(k, map);
    }
    for (const k of SCHEMA_ONE) if (isObject(node[k])) set(k, walk(node[k], depth + 1));
    for (const k of SCHEMA_LISTS) {
      if (!Array.isArray(node[k])) continue;
      const items = node[k].map((sub: unknown) => walk(sub, depth + 1));
      if (items.some((x: unknown, i: number) => x !== node[k][i])) set(k, items);
    }
    return out;
  };
  const out = walk(schema, 0) as JsonSchema;
  return changed ? out : schema;
}

/**
 * `arb`'s values that pass `accept`, drawn at most `tries` times: then the last draw is handed over as it
 * is (fast-check's own `.filter` draws until one passes, forever when none does).
 */
class BoundedFilter<T> extends fc.Arbitrary<T> {
  constructor(private readonly arb: fc.Arbitrary<T>, private readonly accept: (v: T) => boolean, private readonly tries: number) {
    super();
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    let last = this.arb.generate(mrng, biasFactor);
    for (let i = 1; i < this.tries && !this.accept(last.value); i++) last = this.arb.generate(mrng, biasFactor);
    return last;
  }

  canShrinkWithoutContext(value: unknown): value is T {
    return this.arb.canShrinkWithoutContext(value) && this.accept(value);
  }

  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.arb.shrink(value, context).filter((v) => this.accept(v.value));
  }
}

function boundedFilter<T>(arb: fc.Arbitrary<T>, accept: (v: T) => boolean, tries = FILTER_TRIES): fc.Arbitrary<T> {
  return new BoundedFilter(arb, accept, tries);
}

// ---------------------------------------------------------------------------------------------------------
// Valid values.

interface Ctx {
  /** The document the schema's local `$ref`s point into. */
  root: JsonSchema;
  hints: Record<string, unknown[]>;
  maxStringLength: number;
  maxBoundaryLength: number;
}

function ctxOf(schema: JsonSchema, options: SchemaArbitraryOptions): Ctx {
  return { root: schema, hints: options.hints ?? {}, maxStringLength: options.maxStringLength ?? 24, maxBoundaryLength: options.maxBoundaryLength ?? 25_000 };
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
    case 'idn-hostname':
      return fc.tuple(label, fc.constantFrom('com', 'example', 'net')).map(([h, tld]) => `${h}.${tld}`);
    case 'idn-email':
      return formatted('email');
    case 'ipv6':
      return fc.ipV6();
    case 'iso-date-time':
      return formatted('date-time');
    case 'iso-time':
      return date.map((d) => d.toISOString().slice(11, 19));
    case 'duration':
      return fc.tuple(fc.integer({ min: 1, max: 999 }), fc.constantFrom('D', 'W', 'TH', 'TM', 'TS', 'Y')).map(([n, unit]) => (unit.startsWith('T') ? `PT${n}${unit[1]}` : `P${n}${unit}`));
    case 'uri-template':
      return fc.tuple(label, label).map(([host, name]) => `https://${host}.example/{${name}}`);
    case 'json-pointer':
      return fc.array(label, { maxLength: 3 }).map((parts) => parts.map((p) => `/${p}`).join(''));
    case 'relative-json-pointer':
      return fc.tuple(fc.nat({ max: 3 }), fc.array(label, { maxLength: 2 })).map(([up, parts]) => `${up}${parts.map((p) => `/${p}`).join('')}`);
    case 'regex':
      return fc.constantFrom('^[a-z]+$', '\\d{3}', '.*');
    case 'byte':
      return fc.base64String({ maxLength: 24 });
    default:
      return undefined;
  }
}

function validString(s: Schema, ctx: Ctx): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : undefined;
  const fits = (v: string) => codePoints(v) >= min && (max === undefined || codePoints(v) <= max);
  const bounded = min > 0 || max !== undefined;
  if (typeof s.format === 'string') {
    const f = formatted(s.format);
    if (f) return bounded ? boundedFilter(f, fits) : f;
  }
  const re = regex(s.pattern);
  if (re) {
    let matching: fc.Arbitrary<string>;
    try {
      matching = fc.stringMatching(re);
    } catch {
      // A pattern fast-check cannot read (a lookaround, a backreference): strings tried against it.
      matching = boundedFilter(fc.string({ minLength: min, maxLength: Math.min(max ?? min + ctx.maxStringLength, min + ctx.maxStringLength) }), (v) => re.test(v));
    }
    return bounded ? boundedFilter(matching, fits) : matching;
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
  // Deep down (a recursive schema) an object has its required properties only, so the recursion ends.
  const deep = depth >= MAX_DEPTH;
  for (const [name, sub] of Object.entries(props)) {
    if (!required.includes(name) && (deep || view(sub, ctx.root) === false)) continue;
    const own = valid(sub, ctx, depth + 1);
    const hinted = ctx.hints[name]?.filter((h) => h !== undefined);
    shape[name] = hinted && hinted.length > 0 ? fc.oneof({ arbitrary: own, weight: 1 }, { arbitrary: fc.constantFrom(...hinted), weight: 1 }) : own;
  }
  for (const name of required) if (!(name in shape)) shape[name] = valid(true, ctx, depth + 1);
  const record = fc.record(shape, { requiredKeys: required });
  if (s.additionalProperties === false || deep) return record;
  // Members the schema does not name are allowed (or constrained by additionalProperties): a few, sometimes.
  const extraKey = boundedFilter(fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,11}$/), (k) => !(k in props));
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
    // Deep down (a recursive schema) an array has its fewest items, so the recursion ends.
    case 'array': return validArray(depth >= MAX_DEPTH ? { ...s, maxItems: typeof s.minItems === 'number' ? s.minItems : 0 } : s, ctx, depth);
    case 'object': return validObject(s, ctx, depth);
    default: return anyJson(depth);
  }
}

/** `nested`: unions inside unions with nothing in between (a union that refers to itself never descends). */
function valid(schema: JsonSchema, ctx: Ctx, depth: number, nested = 0): fc.Arbitrary<unknown> {
  // A recursion with no way out, or a schema nothing satisfies (`false`, contradicting allOf parts): values
  // for the judge to refuse.
  if (depth >= GIVE_UP_DEPTH || nested > MAX_NESTED_UNIONS) return anyJson(depth);
  const s = view(schema, ctx.root);
  if (s === true || !isObject(s)) return anyJson(depth);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum);
  const union = alternativesOf(s);
  let arb: fc.Arbitrary<unknown>;
  if (union) {
    // Each alternative with what its siblings add. Deep down, only the alternatives that end there
    // (`Optional[Node]`'s null), when it has some.
    const alternatives = union.alternatives.map((alt) => fold(union.base, view(alt, ctx.root)));
    const ending = depth >= MAX_DEPTH ? alternatives.filter((alt) => isObject(alt) && typesOf(alt)?.every((t) => t !== 'object' && t !== 'array')) : [];
    arb = fc.oneof(...(ending.length > 0 ? ending : alternatives).map((alt) => valid(alt, ctx, depth, nested + 1)));
  } else {
    const types = typesOf(s);
    arb = types ? fc.oneof(...types.map((t) => byType(t, s, ctx, depth))) : anyJson(depth);
  }
  return 'default' in s ? fc.oneof({ arbitrary: arb, weight: 4 }, { arbitrary: fc.constant(s.default), weight: 1 }) : arb;
}

/** Values the schema accepts (aimed at: classify them with `schemaValidator`). */
export function validValues(schema: JsonSchema, options: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  return valid(schema, ctxOf(schema, options), 0);
}

// ---------------------------------------------------------------------------------------------------------
// Invalid values: one defect each, in a value otherwise valid.

/** One value of each JSON type, to pick a wrong one from. */
const SAMPLES: Record<JsonType, fc.Arbitrary<unknown>> = {
  null: fc.constant(null),
  boolean: fc.boolean(),
  integer: fc.integer({ min: -1000, max: 1000 }),
  number: boundedFilter(fc.double({ min: -1000, max: 1000, noNaN: true }), (x) => !Number.isInteger(x)),
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
  if (re) out.push(boundedFilter(fc.string({ maxLength: 12 }), (v) => !re.test(v)).map((value) => ({ value, mutation: `a string not matching ${s.pattern}` })));
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
    out.push(boundedFilter(base, (a) => a.length > 0).map((a) => ({ value: [...a, a[0]], mutation: 'a repeated item (uniqueItems)' })));
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
    const extraKey = boundedFilter(fc.oneof(fc.constantFrom('extra', 'conformanceExtra', 'id', 'type'), fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,11}$/)), (k) => !(k in props));
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
  if (depth > MAX_DEPTH) return undefined;
  const s = view(schema, ctx.root);
  if (s === false) return anyJson(depth).map((value) => ({ value, mutation: 'any value (the schema is false)' }));
  if (!isObject(s)) return undefined;
  const out: fc.Arbitrary<InvalidValue>[] = [];
  if ('const' in s) {
    out.push(boundedFilter(fc.jsonValue({ maxDepth: 1 }), (v) => JSON.stringify(v) !== JSON.stringify(s.const)).map((value) => ({ value, mutation: `not the constant ${JSON.stringify(s.const)}` })));
  } else if (Array.isArray(s.enum) && s.enum.length > 0) {
    const members = new Set(s.enum.map((v: unknown) => JSON.stringify(v)));
    const near = s.enum.filter((v: unknown): v is string => typeof v === 'string').flatMap((v: string) => [v.toUpperCase(), `${v} `, v.slice(0, -1)]);
    out.push(boundedFilter(fc.oneof(...(near.length ? [fc.constantFrom(...near)] : []), fc.string({ maxLength: 10 }), fc.integer()), (v) => !members.has(JSON.stringify(v)))
      .map((value) => ({ value, mutation: `${JSON.stringify(value)}, not one of ${[...members].join(', ')}` })));
  } else if (!Array.isArray(s.anyOf) && !Array.isArray(s.oneOf)) {
    const types = typesOf(s);
    if (types) {
      if (typeMutations) {
        // OpenAPI's `nullable: true`, which ajv reads, makes null one of the types.
        const w = wrongType(s.nullable === true ? [...types, 'null'] : types);
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
    const types = admittedTypes(s, ctx.root);
    if (types) {
      const w = wrongType(types);
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
  return invalid(schema, ctxOf(schema, options), 0, options.rootTypeMutations ?? false);
}
