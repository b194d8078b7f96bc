/**
 * The k6 to run: the pinned build (scripts/install-k6.sh builds it into .tools/bin when missing, a no-op
 * otherwise, or names a supported k6 already on PATH). Shared by `npm run load:k6` and the capacity search's
 * k6 driver.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/kit/package-root.js';

export function ensureK6(): string {
  const result = spawnSync('bash', [join(PACKAGE_ROOT, 'scripts', 'install-k6.sh')], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const path = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !existsSync(path)) {
    throw new Error('k6 is not installed and scripts/install-k6.sh could not build it');
  }
  return path;
}
