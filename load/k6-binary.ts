/**
 * The k6 to run: the pinned build (scripts/install-k6.sh builds it into .tools/bin when missing, a no-op
 * otherwise, or names a supported k6 already on PATH), and which one it is. Shared by `npm run load:k6` and the
 * capacity search's k6 driver.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/kit/package-root.js';

export interface K6Binary {
  path: string;
  /** `k6 version`'s first line, e.g. "k6 v1.8.1 (go1.24, linux/amd64)". */
  version: string;
  /** How it came to run: found on PATH, the pinned one already built, or built now (and how long that took). */
  origin: 'on PATH' | 'pinned, built earlier' | { builtInS: number };
}

/** The pinned k6, built by the project script when missing or another version (a no-op otherwise); says which one runs. */
export function findK6(): K6Binary {
  const started = Date.now();
  // The script's stderr (its "building ..." line, Go's output) goes to the user: a build takes minutes.
  const result = spawnSync('bash', [join(PACKAGE_ROOT, 'scripts', 'install-k6.sh')], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  process.stderr.write(result.stderr ?? '');
  const path = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !existsSync(path)) {
    throw new Error('k6 is not installed and scripts/install-k6.sh could not build it');
  }
  const version = spawnSync(path, ['version'], { encoding: 'utf8' }).stdout.split('\n')[0]?.trim() || 'k6 (version unknown)';
  const built = /install-k6: building/.test(result.stderr ?? '');
  const origin: K6Binary['origin'] = built ? { builtInS: Math.round((Date.now() - started) / 1000) } : path.startsWith(join(PACKAGE_ROOT, '.tools')) ? 'pinned, built earlier' : 'on PATH';
  return { path, version, origin };
}

/** The path alone. */
export function ensureK6(): string {
  return findK6().path;
}

/** One line: which k6 runs, from where. */
export function k6Line(k6: K6Binary, who = 'load:k6'): string {
  const origin = typeof k6.origin === 'string' ? k6.origin : `built from source in ${k6.origin.builtInS} s`;
  return `${who}: ${k6.version} at ${k6.path} (${origin})`;
}
