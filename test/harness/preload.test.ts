import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_NODE_ARGS } from '../../src/cli/spawn-conformance.js';
// @ts-expect-error: plain JavaScript (it runs before tsx), without a declaration file
import { PRELOADS } from '../../src/kit/preload.mjs';
import { TSX_IMPORTS } from '../../src/kit/tsx-imports.js';

/** The packages a module graph imports statically (what loads at start; a dynamic import loads on demand). */
async function packagesImportedBy(entry: string): Promise<string[]> {
  const { metafile } = await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, packages: 'external', outfile: 'out.js', logLevel: 'silent' });
  const found = new Set<string>();
  for (const input of Object.values(metafile.inputs)) {
    for (const i of input.imports) if (i.external && i.kind !== 'dynamic-import' && !i.path.startsWith('node:')) found.add(i.path);
  }
  return [...found].sort();
}

/**
 * Entry points load their packages before tsx registers its hooks (src/kit/preload.mjs): a package missing
 * from an entry's list loads through the hooks again (slower), one the entry no longer imports loads for
 * nothing. Both show here, as does a package script that starts an entry without the preload.
 */
describe('entry points preload their packages', () => {
  const preloads = PRELOADS as Record<string, string[]>;

  it.each(Object.keys(preloads))("%s: the list is exactly the packages the entry's modules import statically", async (entry) => {
    expect(preloads[entry]!.length).toBeGreaterThan(0);
    expect(await packagesImportedBy(entry)).toEqual([...preloads[entry]!].sort());
  });

  it('the package scripts, the conformance pool and the spawned runs import it before tsx', () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    const started = Object.values(scripts).map((s) => /--import tsx (\S+\.ts)/.exec(s)?.[1]).filter((e): e is string => e !== undefined);
    expect(started.filter((e) => preloads[e])).toHaveLength(5);
    for (const [name, script] of Object.entries(scripts)) {
      const entry = /--import tsx (\S+\.ts)/.exec(script)?.[1];
      if (entry && preloads[entry]) expect(script, name).toContain(`--import ./src/kit/preload.mjs --import tsx ${entry}`);
    }
    expect(TSX_IMPORTS.slice(2)).toEqual(['--import', 'tsx']);
    expect(TSX_IMPORTS[1]).toMatch(/src\/kit\/preload\.mjs$/);
    expect(CONFORMANCE_NODE_ARGS.slice(-4)).toEqual(TSX_IMPORTS);
  });
});
