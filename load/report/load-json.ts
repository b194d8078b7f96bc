import { join } from 'node:path';
/** load.json: written as is, and read back (a baseline) only when it matches reports/load.schema.json. */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { LoadReport } from './load-results.js';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';

export const LOAD_JSON = 'load.json';
export const LOAD_SCHEMA_PATH = join(PACKAGE_ROOT, 'reports/load.schema.json');

let validate: ValidateFunction | undefined;

/** What keeps `value` from being a load.json, as `path: message` lines (empty when it is one). */
export function loadReportProblems(value: unknown): string[] {
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats.default(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(LOAD_SCHEMA_PATH, 'utf8')) as object);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
}

export function renderLoadJson(report: LoadReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
