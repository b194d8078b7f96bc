import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The TypeScript programs of the matrix (the two SDK clients, the repository's stdio proxy) run as one
 * bundled file each: `node --import tsx` would load tsx and resolve the SDK's hundred modules in every
 * process, about a second of CPU each, and the matrix starts eight such processes on two cores. A bundle is
 * rebuilt when any file it was built from changed (the SDK upgraded, the program edited).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BUNDLE_DIR = join(ROOT, '.tools/interop');
// An ES module bundle of CommonJS dependencies needs `require`.
const BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function fresh(out: string, inputsFile: string): boolean {
  if (!existsSync(out) || !existsSync(inputsFile)) return false;
  try {
    const inputs = JSON.parse(readFileSync(inputsFile, 'utf8')) as Record<string, string>;
    return Object.entries(inputs).every(([path, hash]) => existsSync(join(ROOT, path)) && digest(join(ROOT, path)) === hash);
  } catch {
    return false;
  }
}

const building = new Map<string, Promise<string>>();

/** The bundle of `entry` (relative to the repository root), built if missing or stale; its absolute path. */
export function bundled(entry: string, name: string): Promise<string> {
  let pending = building.get(name);
  if (!pending) {
    pending = build(entry, name);
    building.set(name, pending);
  }
  return pending;
}

async function build(entry: string, name: string): Promise<string> {
  const out = join(BUNDLE_DIR, `${name}.mjs`);
  const inputsFile = join(BUNDLE_DIR, `${name}.inputs.json`);
  if (fresh(out, inputsFile)) return out;
  const { build: esbuild } = await import('esbuild');
  mkdirSync(BUNDLE_DIR, { recursive: true });
  const result = await esbuild({
    entryPoints: [resolve(ROOT, entry)], outfile: out, bundle: true, platform: 'node', format: 'esm', target: 'node20',
    banner: { js: BANNER }, metafile: true, logLevel: 'silent', absWorkingDir: ROOT, write: false,
  });
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).map((p) => [relative(ROOT, resolve(ROOT, p)), digest(resolve(ROOT, p))]));
  // Runs side by side (the harness's own tests) may build the same bundle: each renames a whole file into place.
  atomicWrite(out, result.outputFiles[0]!.contents);
  atomicWrite(inputsFile, JSON.stringify(inputs));
  return out;
}

function atomicWrite(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}
