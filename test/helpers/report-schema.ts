import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

/** The published schema lets later versions add fields; this copy forbids any field it does not document. */
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

/**
 * A report schema under reports/ as published, and a check that a report matches it and documents every
 * field it holds (a field the harness starts writing must be documented first).
 */
export function reportSchema(path: string) {
  const schema = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const validate = validator(schema);
  const validateClosed = validator(closed(schema));
  const expectValid = (report: unknown): void => {
    expect(validate(report), JSON.stringify(validate.errors, null, 1)).toBe(true);
    expect(validateClosed(report), `a field the report holds is missing from ${path}: ${JSON.stringify(validateClosed.errors, null, 1)}`).toBe(true);
  };
  return { schema, validate, expectValid };
}
