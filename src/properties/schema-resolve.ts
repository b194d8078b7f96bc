import { isObject } from '../mcp/tool-result.js';

/**
 * A schema node as the value generators read it: local `$ref`s followed (siblings applied on top, as 2020-12
 * and ajv do), `allOf` folded into one schema (types, enums, bounds intersected; properties united), both
 * lazily: sub-schemas (properties, items, alternatives) stay as written and are read the same way when a
 * generator descends into them, so a recursive schema costs only the depth a generator goes to.
 *
 * This is how real servers write their tools' inputs: pydantic (FastMCP, the python `mcp` SDK) puts enums and
 * nested models in `$defs` behind `{"$ref": "#/$defs/X"}` (with sibling `description`/`default` since 2.9,
 * wrapped in `allOf: [{"$ref": ...}]` before it, `#/definitions/X` in v1), and `Optional[T]` as
 * `anyOf: [T, {"type": "null"}]`; zod-to-json-schema writes nullable as `type: [T, "null"]` or that anyOf,
 * repeated parts as `$ref: "#/properties/..."`, and OpenAPI's `nullable: true` for its openApi3 target.
 */

export type Schema = Record<string, any>;
export type JsonSchema = boolean | Schema;
export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

/**
 * References followed and allOf parts folded for one node before it is given up (a cycle of references
 * with nothing in between, or a schema built to make the reading explode): the judge decides then.
 */
export const MAX_REF_STEPS = 256;

/** What is left of a node's reading budget, shared by everything read for it. */
export interface Steps {
  left: number;
}

const steps = (): Steps => ({ left: MAX_REF_STEPS });

/** Keywords that only annotate, never constrain: not carried into the alternatives of an anyOf. */
const ANNOTATIONS = ['title', 'description', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly', '$id', '$schema', '$defs', 'definitions', '$anchor'];

/** Keywords whose values are data, not schemas: never searched for an `$anchor`. */
const DATA = new Set(['const', 'enum', 'default', 'examples']);

/** The node a local reference points at (`#`, `#/$defs/X`, `#/definitions/X`, `#/properties/a`, `#anchor`); undefined when it is not local or leads nowhere. */
export function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  const hash = ref.indexOf('#');
  const base = hash < 0 ? ref : ref.slice(0, hash);
  // A reference to the document's own `$id` is local too.
  if (base !== '' && !(isObject(root) && typeof root.$id === 'string' && root.$id.split('#', 1)[0] === base)) return undefined;
  const fragment = hash < 0 ? '' : ref.slice(hash + 1);
  let decoded: string;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (decoded === '') return root;
  if (!decoded.startsWith('/')) return findAnchor(root, decoded, 0);
  let node: unknown = root;
  for (const raw of decoded.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, key)) node = node[key];
    else return undefined;
  }
  return typeof node === 'boolean' || isObject(node) ? node : undefined;
}

/** The sub-schema carrying `$anchor: name` (or draft-07's `$id: "#name"`). */
function findAnchor(node: unknown, name: string, depth: number): Schema | undefined {
  if (depth > 64) return undefined;
  if (Array.isArray(node)) {
    for (const x of node) {
      const found = findAnchor(x, name, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (node.$anchor === name || node.$id === `#${name}`) return node;
  for (const [k, v] of Object.entries(node)) {
    if (DATA.has(k)) continue;
    const found = findAnchor(v, name, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The schema a node stands for, with its `$ref` followed and its `allOf` folded (recursively, within
 * MAX_REF_STEPS): `true` for a reference that cannot be followed or a reading that ran out of steps (the
 * judge, ajv, decides about values then), `false` for parts that contradict each other.
 */
export function view(schema: JsonSchema, root: JsonSchema, budget: Steps = steps()): JsonSchema {
  if (!isObject(schema)) return schema;
  if (--budget.left < 0) return true;
  if (typeof schema.$ref === 'string') {
    const { $ref, ...siblings } = schema;
    const target = resolveRef(root, $ref);
    if (target === undefined) return Object.keys(siblings).length > 0 ? view(siblings, root, budget) : true;
    const resolved = view(target, root, budget);
    // The reference's own siblings (pydantic's description and default) apply on top of what it points at.
    return Object.keys(siblings).length > 0 ? fold(resolved, view(siblings, root, budget)) : resolved;
  }
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...rest } = schema;
  let out: JsonSchema = rest;
  for (const part of allOf as JsonSchema[]) out = fold(out, view(part, root, budget));
  return out;
}

const list = (t: unknown): JsonType[] => (typeof t === 'string' ? [t as JsonType] : Array.isArray(t) ? t as JsonType[] : []);

/** The types two type lists both admit (an integer is a number). */
function intersectTypes(a: JsonType[], b: JsonType[]): JsonType[] {
  const out = new Set<JsonType>();
  for (const t of a) {
    if (b.includes(t)) out.add(t);
    else if (t === 'integer' && b.includes('number')) out.add('integer');
    else if (t === 'number' && b.includes('integer')) out.add('integer');
  }
  return [...out];
}

const LOWER = ['minimum', 'minLength', 'minItems', 'minProperties', 'minContains'];
const UPPER = ['maximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains'];

/**
 * Two schemas as one (what `allOf` of them admits), as far as the generators read it: types, enums and
 * consts intersected, bounds tightened, properties united (a property both name takes both schemas),
 * required united. What cannot be folded (two patterns, two anyOfs too large to multiply) keeps one side:
 * the judge refuses what the other would.
 */
export function fold(a: JsonSchema, b: JsonSchema): JsonSchema {
  if (a === false || b === false) return false;
  if (a === true || !isObject(a)) return b;
  if (b === true || !isObject(b)) return a;
  const out: Schema = { ...a, ...b };
  if (a.type !== undefined && b.type !== undefined) {
    const types = intersectTypes(list(a.type), list(b.type));
    if (types.length === 0) return false;
    out.type = types.length === 1 ? types[0] : types;
  }
  if (isObject(a.properties) && isObject(b.properties)) {
    out.properties = { ...a.properties, ...b.properties };
    for (const k of Object.keys(a.properties)) if (k in b.properties) out.properties[k] = { allOf: [a.properties[k], b.properties[k]] };
  }
  if (Array.isArray(a.required) || Array.isArray(b.required)) out.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  if (a.additionalProperties === false || b.additionalProperties === false) out.additionalProperties = false;
  else if (isObject(a.additionalProperties) && isObject(b.additionalProperties)) out.additionalProperties = { allOf: [a.additionalProperties, b.additionalProperties] };
  if (isObject(a.items) && isObject(b.items)) out.items = { allOf: [a.items, b.items] };
  for (const k of LOWER) if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.max(a[k], b[k]);
  for (const k of UPPER) if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.min(a[k], b[k]);
  if (typeof a.exclusiveMinimum === 'number' && typeof b.exclusiveMinimum === 'number') out.exclusiveMinimum = Math.max(a.exclusiveMinimum, b.exclusiveMinimum);
  if (typeof a.exclusiveMaximum === 'number' && typeof b.exclusiveMaximum === 'number') out.exclusiveMaximum = Math.min(a.exclusiveMaximum, b.exclusiveMaximum);
  if (Array.isArray(a.enum) && Array.isArray(b.enum)) {
    const inB = new Set(b.enum.map((v: unknown) => JSON.stringify(v)));
    out.enum = a.enum.filter((v: unknown) => inB.has(JSON.stringify(v)));
    if (out.enum.length === 0) return false;
  }
  if ('const' in a && 'const' in b && JSON.stringify(a.const) !== JSON.stringify(b.const)) return false;
  if ('const' in out && Array.isArray(out.enum)) {
    if (!out.enum.some((v: unknown) => JSON.stringify(v) === JSON.stringify(out.const))) return false;
    delete out.enum;
  }
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(a[k]) && Array.isArray(b[k]) && a[k].length * b[k].length <= 16) {
      out[k] = a[k].flatMap((x: JsonSchema) => b[k].map((y: JsonSchema) => ({ allOf: [x, y] })));
    }
  }
  if (out.minimum !== undefined && out.maximum !== undefined && out.minimum > out.maximum) return false;
  if (out.minLength !== undefined && out.maxLength !== undefined && out.minLength > out.maxLength) return false;
  return out;
}

/** The constraining part of a schema: what an anyOf's siblings add to each alternative. */
export function withoutAnnotations(s: Schema): Schema {
  return Object.fromEntries(Object.entries(s).filter(([k]) => !ANNOTATIONS.includes(k)));
}

/**
 * A union (anyOf, else oneOf) taken apart: its alternatives, and what its siblings add to each (annotations
 * left out: a `default: null` beside an anyOf is not a constraint of each alternative).
 */
export function alternativesOf(s: Schema): { alternatives: JsonSchema[]; base: Schema } | undefined {
  const key = Array.isArray(s.anyOf) && s.anyOf.length > 0 ? 'anyOf' : Array.isArray(s.oneOf) && s.oneOf.length > 0 ? 'oneOf' : undefined;
  if (!key) return undefined;
  const { [key]: alternatives, ...base } = s;
  return { alternatives, base: withoutAnnotations(base) };
}

/** The JSON types a (viewed) schema admits, explicit or inferred from its keywords (undefined: any). */
export function typesOf(s: Schema): JsonType[] | undefined {
  if (typeof s.type === 'string') return [s.type as JsonType];
  if (Array.isArray(s.type)) return s.type as JsonType[];
  if ('properties' in s || 'required' in s || 'additionalProperties' in s) return ['object'];
  if ('items' in s || 'minItems' in s || 'maxItems' in s || 'prefixItems' in s) return ['array'];
  if ('minLength' in s || 'maxLength' in s || 'pattern' in s || 'format' in s) return ['string'];
  if ('minimum' in s || 'maximum' in s || 'exclusiveMinimum' in s || 'exclusiveMaximum' in s || 'multipleOf' in s) return ['number'];
  return undefined;
}

/**
 * Every JSON type a schema admits, through references, allOf, anyOf/oneOf, const and enum (and OpenAPI's
 * `nullable`, which ajv reads); undefined when it admits any type.
 */
export function admittedTypes(schema: JsonSchema, root: JsonSchema, budget: Steps = steps()): JsonType[] | undefined {
  const s = view(schema, root, budget);
  if (s === true || budget.left < 0) return undefined;
  if (s === false) return [];
  const of = (v: unknown): JsonType => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v as JsonType);
  let types: JsonType[] | undefined;
  if ('const' in s) types = [of(s.const)];
  else if (Array.isArray(s.enum)) types = [...new Set(s.enum.map(of))];
  else {
    const split = alternativesOf(s);
    if (split) {
      const each = split.alternatives.map((alt) => admittedTypes(fold(split.base, view(alt, root, budget)), root, budget));
      types = each.some((t: JsonType[] | undefined) => t === undefined) ? undefined : [...new Set(each.flat() as JsonType[])];
    } else types = typesOf(s);
  }
  if (types && s.nullable === true && !types.includes('null')) types = [...types, 'null'];
  return types;
}
