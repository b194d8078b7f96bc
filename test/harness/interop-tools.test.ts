import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { GO_BINARY, isCheckout, locate, setupCommand, toolsDirs, userToolsDir, VENV_PYTHON } from '../../src/interop/tools.js';

// Where the interop matrix's Python and Go clients are looked for: MCP_INTEROP_TOOLS alone, else a checkout's
// .tools, then the per-user folder `setup-interop` fills.
describe('the interop clients\' lookup', () => {
  const base = mkdtempSync(join(tmpdir(), 'interop-tools-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const put = (dir: string, file: string) => {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), '');
  };
  const root = join(base, 'package');
  const data = join(base, 'data');
  const user = join(data, 'mcp-canvas-harness/interop');
  const env = { HOME: join(base, 'home'), XDG_DATA_HOME: data };

  it('the per-user folder: XDG_DATA_HOME, else ~/.local/share', () => {
    expect(userToolsDir(env)).toBe(user);
    expect(userToolsDir({ HOME: '/home/u' })).toBe('/home/u/.local/share/mcp-canvas-harness/interop');
    expect(toolsDirs(env, root)).toEqual([join(root, '.tools'), user]);
  });

  it('a checkout\'s .tools first, then the per-user folder, file by file; none: every place looked at', () => {
    expect(locate(VENV_PYTHON, env, root)).toEqual({ path: undefined, searched: [join(root, '.tools', VENV_PYTHON), join(user, VENV_PYTHON)] });
    put(user, VENV_PYTHON);
    put(user, GO_BINARY);
    expect(locate(VENV_PYTHON, env, root).path).toBe(join(user, VENV_PYTHON));
    put(join(root, '.tools'), VENV_PYTHON);
    expect(locate(VENV_PYTHON, env, root).path).toBe(join(root, '.tools', VENV_PYTHON));
    // The Go binary is only in the per-user folder: found there.
    expect(locate(GO_BINARY, env, root).path).toBe(join(user, GO_BINARY));
  });

  it('MCP_INTEROP_TOOLS alone when set: an empty one shows a machine without the clients', () => {
    const empty = join(base, 'empty');
    expect(toolsDirs({ ...env, MCP_INTEROP_TOOLS: empty }, root)).toEqual([empty]);
    expect(locate(VENV_PYTHON, { ...env, MCP_INTEROP_TOOLS: empty }, root).path).toBeUndefined();
    put(empty, GO_BINARY);
    expect(locate(GO_BINARY, { ...env, MCP_INTEROP_TOOLS: empty }, root).path).toBe(join(empty, GO_BINARY));
  });

  it('the install command said where the user is: the setup script in a checkout, the executable\'s command in an install', () => {
    expect(isCheckout(PACKAGE_ROOT)).toBe(true);
    expect(setupCommand(PACKAGE_ROOT)).toBe('bash scripts/setup-interop.sh');
    expect(isCheckout(root)).toBe(false);
    expect(setupCommand(root)).toBe('npx mcp-canvas-harness setup-interop');
  });
});
