import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../service/reference-server/tools/registry.js';
import { invalidValues, schemaValidator, validValues, type JsonSchema } from '../../src/properties/schema-arbitrary.js';
import { noValidArguments, searchValue } from '../../src/properties/value-search.js';

/**
 * The schema arbitraries aim right: values from `validValues` are valid and values from `invalidValues`
 * invalid, as ajv (the judge the properties use) says, for the reference's tool schemas and for schemas
 * with the other keywords tools use.
 */

/**
 * Input schemas as real servers write them. pydantic v2 (FastMCP, the python `mcp` SDK's `<tool>Arguments`
 * models): enums and nested models in `$defs` behind `$ref` (with sibling description/default since 2.9,
 * `allOf: [{$ref}]` before), `Optional[T] = None` as `anyOf: [T, {type: null}]` with `default: null`,
 * `Literal` discriminators as `const` under `oneOf` with a `discriminator`, titles everywhere; pydantic v1:
 * `#/definitions`; zod-to-json-schema: draft-07, `type: [T, "null"]`, repeated parts as `$ref:
 * "#/properties/..."`, openApi3's `nullable: true`; and recursive models.
 */
const REAL_SHAPES: Record<string, JsonSchema> = {
  'pydantic: enum via $ref into $defs, Optional fields as anyOf with null': {
    $defs: { Kind: { enum: ['text', 'chart', 'table'], title: 'Kind', type: 'string' } },
    additionalProperties: false,
    properties: {
      title: { maxLength: 200, minLength: 1, title: 'Title', type: 'string' },
      kind: { $ref: '#/$defs/Kind', description: 'What the block shows.' },
      content: { anyOf: [{ maxLength: 2000, type: 'string' }, { type: 'null' }], default: null, title: 'Content' },
      count: { anyOf: [{ maximum: 50, minimum: 1, type: 'integer' }, { type: 'null' }], default: null, title: 'Count' },
    },
    required: ['title', 'kind'],
    title: 'create_blockArguments',
    type: 'object',
  },
  'pydantic < 2.9: allOf-wrapped $ref with a default, an Optional enum, nested models': {
    $defs: {
      Driver: { enum: ['postgres', 'mysql', 'http'], title: 'Driver', type: 'string' },
      Connection: {
        additionalProperties: false,
        properties: {
          driver: { allOf: [{ $ref: '#/$defs/Driver' }], default: 'http' },
          url: { format: 'uri', maxLength: 2083, minLength: 1, title: 'Url', type: 'string' },
          port: { anyOf: [{ exclusiveMinimum: 0, maximum: 65535, type: 'integer' }, { type: 'null' }], default: null, title: 'Port' },
        },
        required: ['url'],
        title: 'Connection',
        type: 'object',
      },
    },
    additionalProperties: false,
    properties: {
      name: { title: 'Name', type: 'string' },
      connection: { $ref: '#/$defs/Connection' },
      fallback: { anyOf: [{ $ref: '#/$defs/Connection' }, { type: 'null' }], default: null },
      driver: { anyOf: [{ $ref: '#/$defs/Driver' }, { type: 'null' }], default: null },
    },
    required: ['name', 'connection'],
    title: 'register_sourceArguments',
    type: 'object',
  },
  'pydantic: Literal discriminators (const) in a oneOf with a discriminator': {
    $defs: {
      Cron: { properties: { kind: { const: 'cron', title: 'Kind', type: 'string' }, expression: { minLength: 9, title: 'Expression', type: 'string' } }, required: ['kind', 'expression'], title: 'Cron', type: 'object', additionalProperties: false },
      Interval: { properties: { kind: { const: 'interval', title: 'Kind', type: 'string' }, minutes: { minimum: 1, title: 'Minutes', type: 'integer' } }, required: ['kind', 'minutes'], title: 'Interval', type: 'object', additionalProperties: false },
    },
    properties: {
      trigger: {
        discriminator: { mapping: { cron: '#/$defs/Cron', interval: '#/$defs/Interval' }, propertyName: 'kind' },
        oneOf: [{ $ref: '#/$defs/Cron' }, { $ref: '#/$defs/Interval' }],
        title: 'Trigger',
      },
    },
    required: ['trigger'],
    title: 'schedule_previewArguments',
    type: 'object',
  },
  'formats pydantic and zod emit': {
    type: 'object',
    properties: {
      at: { format: 'date-time', type: 'string' }, day: { format: 'date', type: 'string' }, time: { format: 'time', type: 'string' },
      email: { format: 'email', type: 'string' }, url: { format: 'uri', maxLength: 2083, minLength: 1, type: 'string' }, id: { format: 'uuid', type: 'string' },
      v4: { format: 'ipv4', type: 'string' }, v6: { format: 'ipv6', type: 'string' }, host: { format: 'hostname', type: 'string' },
      every: { format: 'duration', type: 'string' }, blob: { format: 'byte', type: 'string' }, pointer: { format: 'json-pointer', type: 'string' },
      secret: { format: 'password', type: 'string', writeOnly: true }, path: { format: 'path', type: 'string' },
    },
    required: ['at', 'day', 'time', 'email', 'url', 'id', 'v4', 'v6', 'host', 'every', 'blob', 'pointer', 'secret', 'path'],
    additionalProperties: false,
  },
  'pydantic v1: #/definitions': {
    definitions: { Color: { description: 'An enumeration.', enum: ['red', 'blue'], title: 'Color', type: 'string' } },
    properties: { color: { $ref: '#/definitions/Color' }, shade: { allOf: [{ $ref: '#/definitions/Color' }], default: 'blue' } },
    required: ['color'],
    title: 'Toaster',
    type: 'object',
  },
  'zod-to-json-schema: draft-07, type lists with null, a repeated part as #/properties ref': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      from: { type: 'string', format: 'date-time' },
      until: { $ref: '#/properties/from' },
      note: { type: ['string', 'null'], maxLength: 40 },
      mode: { type: 'string', enum: ['fast', 'slow'] },
      tags: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 3 },
    },
    required: ['from', 'mode', 'note'],
    additionalProperties: false,
  },
  'openApi3 nullable, beside a type and beside an allOf-wrapped $ref': {
    $defs: { Mode: { type: 'string', enum: ['a', 'b'] } },
    type: 'object',
    properties: { label: { type: 'string', nullable: true, maxLength: 5 }, mode: { allOf: [{ $ref: '#/$defs/Mode' }], nullable: true } },
    required: ['label', 'mode'],
    additionalProperties: false,
  },
  'a recursive model ($ref into $defs, Optional self-reference)': {
    $defs: {
      Node: {
        properties: {
          label: { title: 'Label', type: 'string', maxLength: 8 },
          next: { anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }], default: null },
          children: { items: { $ref: '#/$defs/Node' }, title: 'Children', type: 'array' },
        },
        required: ['label', 'next'],
        title: 'Node',
        type: 'object',
        additionalProperties: false,
      },
    },
    properties: { root: { $ref: '#/$defs/Node' } },
    required: ['root'],
    type: 'object',
  },
  'a recursive schema through #': {
    type: 'object',
    properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#' }, maxItems: 3 } },
    required: ['value', 'children'],
    additionalProperties: false,
  },
};

const SCHEMAS: Record<string, JsonSchema> = {
  ...Object.fromEntries(TOOLS.map((t) => [t.name, t.inputSchema])),
  'numbers with exclusive bounds and multipleOf': {
    type: 'object',
    properties: {
      n: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      k: { type: 'integer', minimum: -5, exclusiveMaximum: 5, multipleOf: 2 },
      big: { type: 'integer' },
    },
    required: ['n'],
    additionalProperties: false,
  },
  'arrays with item constraints': {
    type: 'object',
    properties: {
      tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 3 }, minItems: 1, maxItems: 3, uniqueItems: true },
      points: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'], additionalProperties: false } },
    },
    required: ['tags'],
  },
  'unions and type lists': {
    type: 'object',
    properties: {
      v: { anyOf: [{ type: 'string', format: 'email' }, { type: 'integer', minimum: 0 }] },
      w: { oneOf: [{ type: 'null' }, { type: 'boolean' }] },
      t: { type: ['string', 'null'], maxLength: 4 },
    },
    required: ['v'],
  },
  'nested objects, formats, const and pattern': {
    type: 'object',
    properties: {
      inner: {
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time' },
          at: { type: 'string', format: 'uri' },
          mode: { const: 'fast' },
          id: { type: 'string', format: 'uuid' },
        },
        required: ['when', 'mode'],
        additionalProperties: false,
      },
      code: { type: 'string', pattern: '^[A-Z]{2}-[0-9]{3}$' },
    },
    required: ['inner'],
    additionalProperties: false,
  },
  'draft-07 with defaults': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      email: { type: 'string', format: 'email' },
      day: { type: 'string', format: 'date' },
      mode: { enum: ['a', 'b', 3], default: 'a' },
    },
    additionalProperties: false,
  },
  'allOf': {
    allOf: [
      { type: 'object', properties: { a: { type: 'string', maxLength: 2 } }, required: ['a'] },
      { properties: { b: { type: 'boolean' } }, required: ['b'] },
    ],
  },
  ...REAL_SHAPES,
};

describe('schema arbitraries', () => {
  it.each(Object.entries(SCHEMAS))('valid values of %s validate', (_name, schema) => {
    const validate = schemaValidator(schema);
    fc.assert(fc.property(validValues(schema), (v) => {
      expect(validate(v), validate.errors(v)).toBe(true);
    }), { numRuns: 300, seed: 42 });
  });

  it.each(Object.entries(SCHEMAS))('invalid values of %s do not validate', (_name, schema) => {
    const validate = schemaValidator(schema);
    const invalid = invalidValues(schema);
    expect(invalid).toBeDefined();
    fc.assert(fc.property(invalid!, ({ value, mutation }) => {
      expect(validate(value), `${mutation}: ${JSON.stringify(value).slice(0, 200)}`).toBe(false);
    }), { numRuns: 300, seed: 42 });
  });

  it('invalid values cover each kind of defect', () => {
    const mutations = [
      ...fc.sample(invalidValues(SCHEMAS['blocks.create']!)!, { numRuns: 400, seed: 1 }),
      ...fc.sample(invalidValues(SCHEMAS['schedule.preview']!)!, { numRuns: 400, seed: 1 }),
      ...fc.sample(invalidValues(SCHEMAS['arrays with item constraints']!)!, { numRuns: 400, seed: 1 }),
    ].map((v) => v.mutation).join('\n');
    for (const kind of [/where string is expected/, /required property "title" missing/, /extra property/, /maxLength 200/, /minLength 1/, /not one of/, /above the maximum 50/, /below the minimum 1/, /not an integer/, /not a date-time/, /items \(maxItems 3\)/, /repeated item/]) {
      expect(mutations).toMatch(kind);
    }
  });

  it('a root of the wrong type only when asked', () => {
    const schema = SCHEMAS['blocks.list']!;
    const roots = fc.sample(invalidValues(schema, { rootTypeMutations: true })!, { numRuns: 200, seed: 3 }).filter((v) => typeof v.value !== 'object' || v.value === null || Array.isArray(v.value));
    expect(roots.length).toBeGreaterThan(0);
    const objects = fc.sample(invalidValues(schema)!, { numRuns: 200, seed: 3 });
    expect(objects.every((v) => typeof v.value === 'object' && v.value !== null && !Array.isArray(v.value))).toBe(true);
  });

  it('hints are mixed in for properties of their name', () => {
    const values = fc.sample(validValues(SCHEMAS['blocks.build']!, { hints: { blockId: ['blk_known'] } }), { numRuns: 200, seed: 5 });
    expect(values.filter((v) => (v as { blockId: string }).blockId === 'blk_known').length).toBeGreaterThan(40);
  });

  it('a schema that admits everything has no invalid values', () => {
    expect(invalidValues({})).toBeUndefined();
    expect(invalidValues({ type: 'object' })).toBeUndefined();
  });

  it('compiles in the dialect the schema names', () => {
    // `$defs` + `prefixItems` are 2020-12; draft-07 reads `items` as a tuple.
    expect(schemaValidator({ type: 'array', prefixItems: [{ type: 'string' }], items: false })(['a'])).toBe(true);
    expect(schemaValidator({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }], additionalItems: false })(['a', 'b'])).toBe(false);
    expect(() => schemaValidator({ type: 'nonsense' })).toThrow();
  });
});

describe('real schema shapes are aimed at, not only judged', () => {
  const sample = (schema: JsonSchema, n = 300) => fc.sample(validValues(schema), { numRuns: n, seed: 11 }) as Record<string, any>[];

  it('an enum behind $ref (and behind allOf) yields its members', () => {
    const kinds = new Set(sample(REAL_SHAPES['pydantic: enum via $ref into $defs, Optional fields as anyOf with null']!).map((v) => v.kind));
    expect([...kinds].sort()).toEqual(['chart', 'table', 'text']);
    const drivers = new Set(sample(REAL_SHAPES['pydantic < 2.9: allOf-wrapped $ref with a default, an Optional enum, nested models']!).map((v) => v.connection.driver).filter((d) => d !== undefined));
    expect([...drivers].sort()).toEqual(['http', 'mysql', 'postgres']);
  });

  it('an Optional field is sometimes null, sometimes a value of its type', () => {
    const contents = sample(REAL_SHAPES['pydantic: enum via $ref into $defs, Optional fields as anyOf with null']!).map((v) => v.content).filter((c) => c !== undefined);
    expect(contents.some((c) => c === null)).toBe(true);
    expect(contents.some((c) => typeof c === 'string')).toBe(true);
  });

  it('a discriminated union yields each variant with its const tag', () => {
    const tags = new Set(sample(REAL_SHAPES['pydantic: Literal discriminators (const) in a oneOf with a discriminator']!).map((v) => v.trigger.kind));
    expect([...tags].sort()).toEqual(['cron', 'interval']);
  });

  it('a recursive model goes a few levels deep, then ends', () => {
    const depthOf = (n: any): number => (n && typeof n === 'object' && n.next ? 1 + depthOf(n.next) : 0);
    const depths = sample(REAL_SHAPES['a recursive model ($ref into $defs, Optional self-reference)']!).map((v) => depthOf(v.root));
    expect(Math.max(...depths)).toBeGreaterThanOrEqual(2);
  });
});

describe('every search for a valid value ends', () => {
  // Schemas no value satisfies, or none the generators can reach: each search ends by its own bounds (a
  // time and a count) with the reason, where fast-check's `.filter` would draw forever.
  const UNSATISFIABLE: Record<string, JsonSchema> = {
    'allOf of a string and an integer': { type: 'object', properties: { x: { allOf: [{ type: 'string' }, { type: 'integer' }] } }, required: ['x'] },
    'the root itself a contradiction': { allOf: [{ type: 'string' }, { type: 'integer' }] },
    'a pattern nothing matches (a lookahead fast-check cannot read)': { type: 'object', properties: { code: { type: 'string', pattern: '^(?!a)a$' } }, required: ['code'] },
    'a pattern longer than maxLength allows': { type: 'object', properties: { code: { type: 'string', pattern: '^[a-z]{5}$', maxLength: 3 } }, required: ['code'] },
    'a required recursion with no way out': { $defs: { N: { type: 'object', properties: { n: { $ref: '#/$defs/N' } }, required: ['n'] } }, $ref: '#/$defs/N' },
    'an enum behind $ref none of whose members fits': { $defs: { K: { enum: ['a', 'b'] } }, type: 'object', properties: { k: { $ref: '#/$defs/K', minLength: 3 } }, required: ['k'] },
  };
  const bounds = { deadlineMs: 100, maxTries: 100_000 };

  it.each(Object.entries(UNSATISFIABLE))('%s: not found, with the reason', (_name, schema) => {
    const validate = schemaValidator(schema);
    const outcome = searchValue(validValues(schema), (v) => validate(v), 7, bounds, (v) => validate.errors(v));
    expect(outcome.found).toBe(false);
    if (outcome.found) return;
    expect(outcome.tries).toBeGreaterThan(0);
    expect(noValidArguments('x.tool', outcome, bounds)).toMatch(/^no valid arguments found for x\.tool within 100 ms \(\d+ candidates from its inputSchema, none valid; the last: data/);
  });

  it('ends on the count of draws too', () => {
    const schema = UNSATISFIABLE['allOf of a string and an integer']!;
    const validate = schemaValidator(schema);
    const outcome = searchValue(validValues(schema), (v) => validate(v), 7, { deadlineMs: 60_000, maxTries: 50 });
    expect(outcome).toMatchObject({ found: false, tries: 50 });
  });

  it('a single draw never spins: bounded filters hand over what they have', () => {
    for (const schema of Object.values(UNSATISFIABLE)) {
      expect(fc.sample(validValues(schema), { numRuns: 20, seed: 3 })).toHaveLength(20);
      const invalid = invalidValues(schema);
      if (invalid) expect(fc.sample(invalid, { numRuns: 20, seed: 3 })).toHaveLength(20);
    }
    // A pattern every string matches leaves the "not matching" mutation nothing: still 20 draws.
    expect(fc.sample(invalidValues({ type: 'string', pattern: '.*' }, { rootTypeMutations: false })!, { numRuns: 20, seed: 3 })).toHaveLength(20);
  });

  it('finds a value that validates in every real shape, the same one for the same seed', () => {
    for (const [name, schema] of Object.entries(REAL_SHAPES)) {
      const validate = schemaValidator(schema);
      const first = searchValue(validValues(schema), (v) => validate(v), 20260728);
      const again = searchValue(validValues(schema), (v) => validate(v), 20260728);
      expect(first.found, name).toBe(true);
      if (!first.found || !again.found) continue;
      expect(validate(first.value), `${name}: ${validate.errors(first.value)}`).toBe(true);
      expect(again.value, name).toEqual(first.value);
    }
  });

  it('a typeless OpenAPI nullable, which ajv refuses, is read as OpenAPI 3.0.3 reads it (no effect)', () => {
    const validate = schemaValidator(REAL_SHAPES['openApi3 nullable, beside a type and beside an allOf-wrapped $ref']!);
    expect(validate({ label: null, mode: 'a' })).toBe(true);
    expect(validate({ label: 'x', mode: null })).toBe(false);
    expect(validate({ label: 'x', mode: 'c' })).toBe(false);
  });
});
