import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FINGERPRINT_LABEL, HOST_MODULES_RECORD, IMAGE_INPUTS, imageFingerprint } from '../../src/targets/image-fingerprint.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

describe('the reference image fingerprint', () => {
  it('covers every path the Dockerfile copies from the build context, and the Dockerfile labels the image with it', () => {
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/).slice(0, -1));
    expect(copied.length).toBeGreaterThan(3);
    // node_modules is copied in the host stage only, and stood for by npm's record of the installed tree.
    const uncovered = copied.filter((p) => p !== 'node_modules' && !IMAGE_INPUTS.some((input) => p.replace(/\/$/, '') === input || p.startsWith(`${input}/`)));
    expect(uncovered).toEqual([]);
    expect(dockerfile).toMatch(new RegExp(`^LABEL ${FINGERPRINT_LABEL.replace(/\./g, '\\.')}=\\$\\{SOURCE_FINGERPRINT\\}$`, 'm'));
  });

  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  function write(path: string, text: string): void {
    mkdirSync(dirname(join(root!, path)), { recursive: true });
    writeFileSync(join(root!, path), text);
  }

  it('changes with any input file, a new file, a build argument or the base image, and only then', () => {
    root = mkdtempSync(join(tmpdir(), 'image-fingerprint-'));
    for (const input of IMAGE_INPUTS) write(input.includes('/') ? `${input}/index.ts` : input, `${input}\n`);
    write('dist/service/reference-server/http/nested.js', 'nested\n');
    write(HOST_MODULES_RECORD, '{"lockfileVersion":3}\n');
    write('README.md', 'not in the image\n');
    const args = { BASE_IMAGE: 'localhost/base', NODE_MODULES: 'host' };
    const first = imageFingerprint(root, args, 'sha256:base1');
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(imageFingerprint(root, args, 'sha256:base1'), 'the same inputs').toBe(first);

    write('README.md', 'still not in the image\n');
    expect(imageFingerprint(root, args, 'sha256:base1'), 'a file the image does not hold').toBe(first);

    const seen = new Set([first]);
    const changed = (what: string, fingerprint: string) => {
      expect(seen.has(fingerprint), what).toBe(false);
      seen.add(fingerprint);
    };
    write('dist/service/reference-server/http/nested.js', 'nested, edited\n');
    changed('a nested source edited', imageFingerprint(root, args, 'sha256:base1'));
    write('dist/src/kit/added.js', 'new\n');
    changed('a source added', imageFingerprint(root, args, 'sha256:base1'));
    write('Dockerfile', 'FROM other\n');
    changed('the Dockerfile', imageFingerprint(root, args, 'sha256:base1'));
    write(HOST_MODULES_RECORD, '{"lockfileVersion":3,"packages":{}}\n');
    const hostModules = imageFingerprint(root, args, 'sha256:base1');
    changed('the installed tree, with NODE_MODULES=host', hostModules);
    changed('the base image', imageFingerprint(root, args, 'sha256:base2'));
    changed('a build argument', imageFingerprint(root, { ...args, BASE_IMAGE: 'localhost/other' }, 'sha256:base1'));

    const npmCi = { ...args, NODE_MODULES: 'npm-ci' };
    const before = imageFingerprint(root, npmCi, 'sha256:base1');
    changed('NODE_MODULES=npm-ci', before);
    write(HOST_MODULES_RECORD, '{"lockfileVersion":3,"packages":{"x":{}}}\n');
    expect(imageFingerprint(root, npmCi, 'sha256:base1'), 'npm-ci installs from the lock file, not the host tree').toBe(before);
  });
});
