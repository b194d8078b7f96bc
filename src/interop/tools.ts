import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BIN, throughBin } from '../kit/invocation.js';
import { PACKAGE_ROOT } from '../kit/package-root.js';

/**
 * Where the interop matrix's Python and Go clients live (a virtual environment `venv/` and a binary
 * `bin/interop-go` under one folder), and how a person installs them where they are.
 *
 * The lookup, per file: MCP_INTEROP_TOOLS alone when it is set (a test points it at an empty folder to show a
 * machine without the clients); else a checkout's own `.tools` (what `bash scripts/setup-interop.sh` makes);
 * else the per-user folder that `mcp-canvas-harness setup-interop` fills, which outlives `npm ci` and a
 * reinstall of the package (an installed package's own folder is wiped by both).
 */

export const CLIENTS_DIR = join(PACKAGE_ROOT, 'src/interop/clients');
export const VENV_PYTHON = 'venv/bin/python';
export const GO_BINARY = 'bin/interop-go';

/** `${XDG_DATA_HOME:-$HOME/.local/share}/mcp-canvas-harness/interop`. */
export function userToolsDir(env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local/share');
  return join(data, 'mcp-canvas-harness', 'interop');
}

/** The folders searched, in order. */
export function toolsDirs(env: NodeJS.ProcessEnv = process.env, root = PACKAGE_ROOT): string[] {
  if (env.MCP_INTEROP_TOOLS) return [env.MCP_INTEROP_TOOLS];
  return [join(root, '.tools'), userToolsDir(env)];
}

/** The first of the folders holding `file`; else undefined, with every place looked at. */
export function locate(file: string, env: NodeJS.ProcessEnv = process.env, root = PACKAGE_ROOT): { path?: string; searched: string[] } {
  const searched = toolsDirs(env, root).map((dir) => join(dir, file));
  return { path: searched.find((p) => existsSync(p)), searched };
}

/** Where `setup-interop` installs: MCP_INTEROP_TOOLS, else the per-user folder. */
export function installDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MCP_INTEROP_TOOLS || userToolsDir(env);
}

/** A checkout has the TypeScript sources; a package ships only dist/ (and the clients' own sources). */
export function isCheckout(root = PACKAGE_ROOT): boolean {
  return existsSync(join(root, 'src/cli/bin.ts'));
}

/**
 * The command that installs the clients, said the way that works where the person is: through the
 * executable (an install, or `node dist/src/cli/bin.js` anywhere) its own command; from a checkout's npm
 * scripts and programs, the repository's setup script.
 */
export function setupCommand(root = PACKAGE_ROOT): string {
  return throughBin() || !isCheckout(root) ? `npx ${BIN} setup-interop` : 'bash scripts/setup-interop.sh';
}

// The stamps are the same as scripts/setup-interop.sh writes, so either installer sees the other's work as done.
/** What the venv's stamp (`venv/.requirements`) holds when the pinned Python SDK is installed. */
export function pythonPin(): string {
  return readFileSync(join(CLIENTS_DIR, 'requirements.txt'), 'utf8');
}

/** What the Go binary's stamp (`bin/.interop-go.sum`) holds: the sha256 of the sources it was built from. */
export function goPin(): string {
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(CLIENTS_DIR, 'go-client', f)));
  return hash.digest('hex');
}
