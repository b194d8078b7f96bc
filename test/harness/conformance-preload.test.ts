import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_NODE_ARGS } from '../../src/cli/spawn-conformance.js';

const PRELOAD = 'src/cli/conformance-preload.mjs';

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
 * The conformance command loads its packages before tsx registers its hooks (src/cli/conformance-preload.mjs):
 * a package missing from the list loads through the hooks again (slower), one that the command no longer
 * imports loads for nothing. Both show here.
 */
describe('the conformance command preloads its packages', () => {
  const listed = [...readFileSync(PRELOAD, 'utf8').matchAll(/^\s+'([^']+)',$/gm)].map((m) => m[1]!).sort();

  it("lists exactly the packages the command's modules import statically", async () => {
    expect(listed.length).toBeGreaterThan(5);
    expect(await packagesImportedBy('src/cli/conformance.ts')).toEqual(listed);
    expect(await packagesImportedBy('src/cli/conformance-pool-child.ts')).toEqual(listed);
  });

  it('is imported before tsx by the package script, the child runs and the pool', () => {
    const script = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.conformance!;
    expect(script).toContain(`--import ./${PRELOAD} --import tsx src/cli/conformance.ts`);
    const at = CONFORMANCE_NODE_ARGS.findIndex((a) => a.endsWith(PRELOAD));
    expect(at).toBeGreaterThan(0);
    expect(CONFORMANCE_NODE_ARGS.slice(at + 1)).toEqual(['--import', 'tsx']);
  });
});
