import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * mkdir -p in bounded time. node's own `mkdirSync(dir, { recursive: true })` loops forever, in native code
 * (deaf to SIGTERM), where mkdir says ENOENT under a parent that exists: /proc/x, /proc/x/y. Here each missing
 * folder is made once, from the nearest one that exists down; the first refusal is thrown as is.
 */
export function makeDir(dir: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  while (!existsSync(at)) {
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (err) {
      // Made meanwhile by another process: fine, if it is a folder (checked below).
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  if (!statSync(dir).isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR' });
}
