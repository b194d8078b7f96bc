import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { declaredChecks, declaringSuite, type CheckDefinition } from '../check.js';

/**
 * The suites, loaded once per process: every `suites/**\/*.suite.{ts,js}` beside this module's tree (the
 * sources, or the compiled ones in dist/). Loading one declares its checks; the run plans from the list.
 */
const SUITES_DIR = new URL('../../suites/', import.meta.url);

/** `auth` for auth.suite.ts, `properties/jsonrpc` for properties/jsonrpc.suite.js. */
export function groupOf(file: string): string {
  return file.replace(/\\/g, '/').replace(/\.suite\.[cm]?[jt]s$/, '');
}

/** The suite files in the order a run starts them: by name, the interop matrix last (it reads what the matrix found). */
export function suiteFiles(): string[] {
  const files = readdirSync(fileURLToPath(SUITES_DIR), { recursive: true, encoding: 'utf8' })
    .map((f) => f.split('\\').join('/'))
    .filter((f) => /\.suite\.[cm]?[jt]s$/.test(f) && !f.endsWith('.d.ts'))
    .sort();
  const last = (f: string) => (groupOf(f) === 'interop-matrix' ? 1 : 0);
  return files.sort((a, b) => last(a) - last(b));
}

let loaded: Promise<readonly CheckDefinition[]> | undefined;

/** Every check of every suite (loaded on first call). */
export function loadChecks(): Promise<readonly CheckDefinition[]> {
  loaded ??= (async () => {
    for (const file of suiteFiles()) {
      await declaringSuite(`suites/${file}`, groupOf(file), () => import(new URL(file, SUITES_DIR).href));
    }
    return declaredChecks();
  })();
  return loaded;
}
