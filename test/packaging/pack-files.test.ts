import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';

/** What `npm pack` would ship, without packing (issue 36: a file the README points to was not in the package). */
describe('the package\'s files', () => {
  it('hold docs/examples/server-everything-baseline.json, which the README points a user to', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8')).toContain('docs/examples/server-everything-baseline.json');
    expect(files).toContain('docs/examples/server-everything-baseline.json');
  }, 60_000);
});
