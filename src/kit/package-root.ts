import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the package is, whether this module runs from its TypeScript sources (the project's tests) or
 * compiled (dist/, what every command runs): the directory holding package.json, above this module.
 */
function findRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = findRoot(fileURLToPath(import.meta.url));

let manifest: { name: string; version: string } | undefined;
/** The package's name and version (package.json), as reports and `--version` name the tool; read once. */
export function packageInfo(): { name: string; version: string } {
  if (!manifest) {
    const { name, version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
    manifest = { name, version };
  }
  return manifest;
}

/** The compiled program of a source file: `src/cli/conformance.ts` → `<root>/dist/src/cli/conformance.js`. */
export function compiled(sourcePath: string): string {
  const rel = sourcePath.startsWith('/') ? relative(PACKAGE_ROOT, sourcePath) : sourcePath;
  return join(PACKAGE_ROOT, 'dist', rel.replace(/\.[cm]?ts$/, '.js'));
}

/**
 * node's arguments that run one of the package's programs (`src/cli/conformance.ts`, say): always the
 * compiled one, whoever asks (a command, a test, a thread), so that no child compiles TypeScript at start.
 */
export function program(sourcePath: string): string {
  const path = compiled(sourcePath);
  if (!existsSync(path)) throw new Error(`${path} is missing: build the harness first (npm run build)`);
  return path;
}
