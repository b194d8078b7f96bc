import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemaValidator, validValues } from '../../src/properties/schema-arbitrary.js';
import { admittedTypes, fold, MAX_REF_STEPS, resolveRef, view, type JsonSchema } from '../../src/properties/schema-resolve.js';

/**
 * Reading schemas as servers write them: local references of every form JSON Schema allows, allOf folded
 * by intersection, and a bound on how far a reading goes (a reference cycle, a schema built to explode).
 */

describe('local references', () => {
  const root = {
    $id: 'https://example.com/tools/create.json',
    $defs: { Kind: { enum: ['a', 'b'] }, 'a/b~c': { const: 1 }, Anchored: { $anchor: 'kind', type: 'integer' } },
    definitions: { Old: { type: 'boolean' } },
    properties: { first: { type: 'string', minLength: 2 }, list: { items: [{ type: 'null' }, { type: 'number' }] } },
  };

  it('reads #, #/$defs, #/definitions, #/properties, array indexes, escapes, anchors and the document\'s own $id', () => {
    expect(resolveRef(root, '#')).toBe(root);
    expect(resolveRef(root, '#/$defs/Kind')).toEqual({ enum: ['a', 'b'] });
    expect(resolveRef(root, '#/definitions/Old')).toEqual({ type: 'boolean' });
    expect(resolveRef(root, '#/properties/first')).toEqual({ type: 'string', minLength: 2 });
    expect(resolveRef(root, '#/properties/list/items/1')).toEqual({ type: 'number' });
    expect(resolveRef(root, '#/$defs/a~1b~0c')).toEqual({ const: 1 });
    expect(resolveRef(root, '#/%24defs/Kind')).toEqual({ enum: ['a', 'b'] });
    expect(resolveRef(root, '#kind')).toMatchObject({ type: 'integer' });
    expect(resolveRef(root, 'https://example.com/tools/create.json#/$defs/Kind')).toEqual({ enum: ['a', 'b'] });
  });

  it('leaves remote and broken references unresolved', () => {
    expect(resolveRef(root, 'https://elsewhere.example/schema.json#/$defs/Kind')).toBeUndefined();
    expect(resolveRef(root, '#/$defs/Missing')).toBeUndefined();
    expect(resolveRef(root, '#/%E0%A4%A')).toBeUndefined();
  });

  it('applies the siblings of a $ref on top of its target (pydantic >= 2.9)', () => {
    const schema = { $defs: { Kind: { enum: ['a', 'b'], title: 'Kind' } }, properties: { k: { $ref: '#/$defs/Kind', description: 'd', default: 'b' } } };
    expect(view(schema.properties.k, schema)).toEqual({ enum: ['a', 'b'], title: 'Kind', description: 'd', default: 'b' });
  });

  it('gives up a cycle of references with nothing in between, and a reading built to explode, within its steps', () => {
    const cycle = { $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } } };
    expect(view({ $ref: '#/$defs/A' }, cycle)).toBe(true);
    // Each level an allOf of two references to the next: 2^40 readings unbounded.
    const defs: Record<string, JsonSchema> = { L40: { type: 'string' } };
    for (let i = 0; i < 40; i++) defs[`L${i}`] = { allOf: [{ $ref: `#/$defs/L${i + 1}` }, { $ref: `#/$defs/L${i + 1}` }] };
    const budget = { left: MAX_REF_STEPS };
    expect(view({ $ref: '#/$defs/L0' }, { $defs: defs }, budget)).toBeDefined();
    expect(budget.left).toBeLessThan(0);
  });

  it('a union that refers to itself still yields values (its null), never a spin', () => {
    const schema = { $defs: { A: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }] } }, type: 'object', properties: { a: { $ref: '#/$defs/A' } }, required: ['a'] };
    const values = fc.sample(validValues(schema), { numRuns: 50, seed: 1 }) as { a: unknown }[];
    expect(values.some((v) => v.a === null)).toBe(true);
    // ajv compiles it, then overflows the stack on any `a` (its recursion never reads data): not judged valid.
    const validate = schemaValidator(schema);
    expect(validate({ a: null })).toBe(false);
    expect(validate.errors({ a: null })).toMatch(/cannot judge it \(Maximum call stack size exceeded\)/);
  });
});

describe('allOf folded by intersection', () => {
  it('intersects types (an integer is a number), enums and consts; contradictions are false', () => {
    expect(fold({ type: 'number' }, { type: ['integer', 'string'] })).toEqual({ type: 'integer' });
    expect(fold({ type: 'string' }, { type: 'integer' })).toBe(false);
    expect(fold({ enum: ['a', 'b', 'c'] }, { enum: ['c', 'b', 'x'] })).toEqual({ enum: ['b', 'c'] });
    expect(fold({ enum: ['a'] }, { enum: ['b'] })).toBe(false);
    expect(fold({ const: 'a' }, { enum: ['a', 'b'] })).toEqual({ const: 'a' });
    expect(fold({ const: 'a' }, { const: 'b' })).toBe(false);
  });

  it('tightens bounds, unites properties and required, keeps additionalProperties: false', () => {
    expect(fold({ minimum: 1, maximum: 10, maxLength: 5 }, { minimum: 3, maximum: 20, maxLength: 3 })).toEqual({ minimum: 3, maximum: 10, maxLength: 3 });
    expect(fold({ minimum: 5 }, { maximum: 4 })).toBe(false);
    const folded = fold({ properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }, { properties: { a: { maxLength: 2 }, b: { type: 'integer' } }, required: ['b'] });
    expect(folded).toEqual({
      properties: { a: { allOf: [{ type: 'string' }, { maxLength: 2 }] }, b: { type: 'integer' } },
      required: ['a', 'b'],
      additionalProperties: false,
    });
  });

  it('folds nested allOf through references (pydantic < 2.9 wraps every described $ref)', () => {
    const root = { $defs: { Base: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } } };
    expect(view({ allOf: [{ $ref: '#/$defs/Base' }, { properties: { n: { type: 'integer' } } }], description: 'x' }, root)).toEqual({
      description: 'x', type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } }, required: ['id'],
    });
  });
});

describe('the types a schema admits', () => {
  it('through references, unions, const, enum and OpenAPI nullable', () => {
    const root = { $defs: { Kind: { enum: ['a', 1] } } };
    expect(admittedTypes({ anyOf: [{ type: 'boolean' }, { type: 'null' }] }, root)?.sort()).toEqual(['boolean', 'null']);
    expect(admittedTypes({ $ref: '#/$defs/Kind' }, root)?.sort()).toEqual(['integer', 'string']);
    expect(admittedTypes({ type: 'string', nullable: true }, root)).toEqual(['string', 'null']);
    expect(admittedTypes({ const: null }, root)).toEqual(['null']);
    expect(admittedTypes({ anyOf: [{ type: 'string' }, {}] }, root)).toBeUndefined();
    expect(admittedTypes({ description: 'anything' }, root)).toBeUndefined();
  });
});
