import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOG } from './catalog/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Only the suites a narrow --only needs are loaded: the selected requirements' groups' suites, and any
 * other suite (the property suites tag ids of several groups) whose source names a selected id. Loading a
 * suite costs its whole import graph in the worker, about 0.6 s for each property suite.
 */
export function suiteFiles(only: string[], selected: (r: (typeof CATALOG)[number]) => boolean): string[] {
  if (only.length === 0) return ['suites/**/*.suite.ts'];
  const rows = CATALOG.filter(selected);
  const groups = new Set(rows.map((r) => `suites/${r.group}.suite.ts`));
  const naming = allSuiteFiles().filter((file) => !groups.has(file) && rows.some((r) => suiteNames(file, r.id)));
  return [...groups, ...naming];
}

export function allSuiteFiles(): string[] {
  return readdirSync(join(ROOT, 'suites'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.suite.ts')).map((f) => `suites/${f.split(sep).join('/')}`).sort();
}

const suiteSources = new Map<string, string>();
/** Whether the suite file's source names the requirement id as a string literal (how check() is given its ids). */
export function suiteNames(file: string, id: string): boolean {
  let source = suiteSources.get(file);
  if (source === undefined) suiteSources.set(file, (source = readFileSync(join(ROOT, file), 'utf8')));
  return new RegExp(`['"\`]${id}['"\`]`).test(source);
}
