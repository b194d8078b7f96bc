/**
 * The README's first screen (issue 36 item 9): the quick start comes first and needs nothing but npm (install,
 * build, run the main job), the full toolchain after it; the image recipe says the podman configuration it needs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';

const readme = readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8');

describe('the README a new user reads first', () => {
  it('opens with two commands: the main job with npm alone, then the tests', () => {
    const block = /```sh\n([\s\S]*?)```/.exec(readme)![1]!.trim().split('\n');
    expect(block).toHaveLength(2);
    expect(block[0]).toMatch(/^npm ci && npm run build && npm run conformance\s+# main job/);
    expect(block[1]).toMatch(/^bash scripts\/setup\.sh && npm test\s+# the tests/);
    // Nothing before the quick start asks for the toolchain.
    expect(readme.slice(0, readme.indexOf('```sh'))).not.toMatch(/setup\.sh|podman|apt/);
  });

  it('says how to read the verdict, and what the full toolchain is for', () => {
    const first = readme.slice(0, readme.indexOf('## Use it from another project'));
    expect(first).toMatch(/The first line of the output is the verdict/);
    expect(first).toMatch(/scripts\/setup\.sh/);
  });

  it('the image recipe under podman names the CONTAINERS_CONF it needs', () => {
    const image = readme.slice(readme.indexOf('### As an image'), readme.indexOf('### In GitHub Actions'));
    expect(image).toMatch(/export CONTAINERS_CONF=\$PWD\/\.tools\/containers\/containers\.conf/);
  });

  it('is a page a user reads (about 250 lines; the rest is in docs/), and every file it or docs/ links to exists', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
    const pages = ['README.md', ...readdirSync(join(PACKAGE_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const missing: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(PACKAGE_ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        if (!existsSync(join(PACKAGE_ROOT, dirname(page), target!))) missing.push(`${page} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
