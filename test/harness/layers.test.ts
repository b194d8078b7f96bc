import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers of the repository, lowest first: a module may import its own layer or a lower one, never a
 * higher one, and no module may reach itself through its imports (type-only imports count: they tie the
 * files together just the same for a reader). The README's "Layout" section describes the same table.
 */
const LAYERS: Array<{ name: string; prefixes: string[] }> = [
  { name: 'kit', prefixes: ['src/kit/'] },
  { name: 'service', prefixes: ['service/'] },
  // The deliberately broken services, a part of the product (--mutant): above the service they break.
  { name: 'service mutants', prefixes: ['service/mutants/'] },
  { name: 'harness', prefixes: ['src/'] },
  { name: 'load', prefixes: ['load/'] },
  { name: 'report folder', prefixes: ['src/reports/folder/'] },
  // The checks are data the command runs (suites/index.ts): above what they use, below the command that loads them.
  { name: 'checks', prefixes: ['suites/'] },
  { name: 'cli', prefixes: ['src/cli/'] },
  // What only tests and benchmarks run (faithful variants, third-party servers, endpoints of known capacity):
  // no part of the product may import it.
  { name: 'test fixtures', prefixes: ['fixtures/'] },
  { name: 'entry points', prefixes: ['scripts/', 'test/'] },
];

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FOLDERS = ['src', 'load', 'service', 'fixtures', 'scripts', 'suites', 'test'];

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') sources(p, out);
    } else if (/\.m?ts$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

// Static imports, re-exports, side-effect imports and dynamic imports of relative specifiers.
const IMPORT = /(?:^|[\s;}])(?:import|export)\s[^'"`;]*?\sfrom\s*(['"])(\.[^'"]+)\1|(?:^|[\s;(=])import\s*\(\s*(['"])(\.[^'"]+)\3\s*\)|^\s*import\s+(['"])(\.[^'"]+)\5/gm;

function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[2] ?? m[4] ?? m[6]!;
    const base = resolve(dirname(file), spec);
    const candidates = spec.endsWith('.js') ? [base.replace(/\.js$/, '.ts')] : [`${base}.ts`, base, join(base, 'index.ts')];
    const hit = candidates.find((c) => c.endsWith('.ts') && existsSync(c));
    if (hit) found.push(relative(ROOT, hit));
  }
  return found;
}

function layerOf(path: string): number {
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((layer, i) => {
    for (const prefix of layer.prefixes) if (path.startsWith(prefix) && prefix.length > bestLength) [best, bestLength] = [i, prefix.length];
  });
  return best;
}

function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const folder of FOLDERS) {
    for (const file of sources(join(ROOT, folder))) edges.set(relative(ROOT, file), importsOf(file, readFileSync(file, 'utf8')));
  }
  return edges;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!indexOf.has(v)) visit(v);
  return out;
}

describe('the import graph', () => {
  const edges = graph();

  it('is read from the real tree (the reader finds the imports it must)', () => {
    expect(edges.size).toBeGreaterThan(200);
    expect(edges.get('src/cli/conformance-run.ts')).toContain('src/engine/run.ts');
    // Every kind of import the reader knows: a dynamic one, a type-only one, a re-export.
    expect(importsOf(join(ROOT, 'x/a.ts'), "const m = await import('./b.js');\nimport type { T } from '../src/kit/scrub.js';\nexport { y } from './c';\n"))
      .toEqual(['src/kit/scrub.ts']); // ./b and ./c do not exist beside x/a.ts: only existing modules count
  });

  it('has every file in a layer', () => {
    expect([...edges.keys()].filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  // src/ is folders by role (docs/architecture.md): a file's folder says what it is for.
  it('keeps no loose file in src/', () => {
    expect([...edges.keys()].filter((f) => /^src\/[^/]+$/.test(f))).toEqual([]);
  });

  it('never imports from a higher layer into a lower one', () => {
    const upward: string[] = [];
    for (const [from, tos] of edges) {
      for (const to of tos) {
        if (layerOf(to) > layerOf(from)) upward.push(`${from} (${LAYERS[layerOf(from)]!.name}) -> ${to} (${LAYERS[layerOf(to)]!.name})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('the checks above can fail: an upward edge and a cycle are found', () => {
    expect(layerOf('src/kit/scrub.ts')).toBeLessThan(layerOf('src/reports/index.ts'));
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['a']]]))).toEqual([['a']]);
  });
});
