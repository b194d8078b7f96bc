import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

/** reports/load.schema.json, as published, and a closed copy that forbids any field it does not document. */
const schema = JSON.parse(readFileSync('reports/load.schema.json', 'utf8')) as Record<string, unknown>;

function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = closed(v);
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function validator(s: unknown) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  return ajv.compile(s as object);
}
const validate = validator(schema);
const validateClosed = validator(closed(schema));

/** load.json matches the published schema, and documents every field it holds. */
export function expectValidLoad(report: unknown): void {
  expect(validate(report), JSON.stringify(validate.errors, null, 1)).toBe(true);
  expect(validateClosed(report), `a field load.json holds is missing from reports/load.schema.json: ${JSON.stringify(validateClosed.errors, null, 1)}`).toBe(true);
}
