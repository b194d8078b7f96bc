import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../fixtures/reference-server/tools/registry.js';
import { invalidValues, schemaValidator, validValues, type JsonSchema } from '../../src/properties/schema-arbitrary.js';

/**
 * The schema arbitraries aim right: values from `validValues` are valid and values from `invalidValues`
 * invalid, as ajv (the judge the properties use) says, for the reference's tool schemas and for schemas
 * with the other keywords tools use.
 */

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
