/** capacity.json: written as is, and read back (the report folder's page) only when it matches reports/capacity.schema.json. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { CapacityReport } from '../capacity-result.js';
import { PACKAGE_ROOT } from '../../../src/kit/package-root.js';

export const CAPACITY_JSON = 'capacity.json';
export const CAPACITY_SCHEMA_PATH = join(PACKAGE_ROOT, 'reports/capacity.schema.json');

let validate: ValidateFunction | undefined;

/** What keeps `value` from being a capacity.json, as `path: message` lines (empty when it is one). */
export function capacityReportProblems(value: unknown): string[] {
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats.default(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(CAPACITY_SCHEMA_PATH, 'utf8')) as object);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
}

export function renderCapacityJson(report: CapacityReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
