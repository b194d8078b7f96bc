import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Revision } from '../catalog/types.js';
import { program } from '../kit/package-root.js';
import { CLIENTS_DIR, GO_BINARY, locate, setupCommand, VENV_PYTHON } from './tools.js';

/**
 * The official MCP SDK clients of the interop matrix (`src/interop/clients/README.md` is their contract):
 * how to run each one's program, how to tell whether its runtime is on this machine, and how to install it.
 * A client whose runtime is missing is not testable with that reason, never skipped in silence.
 */


export const CLIENT_IDS = ['ts-v1', 'ts-v2', 'python', 'go'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export interface InteropClient {
  id: ClientId;
  /** The SDK as a user names it, with its pinned version. */
  sdk: string;
  /** The command and arguments that run the client's program (for TypeScript, its compiled program in dist/). */
  launch(): Promise<{ command: string; args: string[] }>;
  /** Undefined when the client can run here; else why not. */
  missing(): string | undefined;
  /** What installs the runtime on a fresh machine. */
  install: string;
  /**
   * The revisions its handshake can settle on when asked for `protocol` (`auto`: the SDK's default): a 2025-era
   * handshake accepts any 2025 revision the server answers with; a pinned revision is that one only.
   */
  speaks(protocol: 'auto' | Revision): Revision[];
}

const LEGACY: Revision[] = ['2025-03-26', '2025-06-18', '2025-11-25'];
/** The TypeScript SDKs' default handshake is the 2025 one (v1 cannot be pinned at all: it always offers 2025-11-25). */
const legacyByDefault = (pinnable: boolean) => (p: 'auto' | Revision): Revision[] => (p === 'auto' || !pinnable ? LEGACY : [p]);
/** The Python and Go SDKs try server/discover (2026-07-28) first and fall back to initialize. */
const anyByDefault = (p: 'auto' | Revision): Revision[] => (p === 'auto' ? [...LEGACY, '2026-07-28'] : [p]);

const require = createRequire(import.meta.url);
function resolvable(spec: string): boolean {
  try {
    require.resolve(spec);
    return true;
  } catch {
    return false;
  }
}

// The Python venv and the Go binary are looked up when a run asks (src/interop/tools.ts: MCP_INTEROP_TOOLS, a
// checkout's .tools, the per-user folder); a missing one names every place looked at.
const found = (file: string) => locate(file).path ?? locate(file).searched[0]!;
const notFound = (file: string, what: string) => {
  const { path, searched } = locate(file);
  return path ? undefined : `${what} at ${searched.join(' nor at ')}`;
};
const node = (file: string) => async () => ({ command: process.execPath, args: [program(`src/interop/clients/${file}`)] });

export const CLIENTS: Record<ClientId, InteropClient> = {
  'ts-v1': {
    id: 'ts-v1', sdk: '@modelcontextprotocol/sdk 1.32.2 (TypeScript SDK v1)', launch: node('ts-v1.ts'),
    missing: () => (resolvable('@modelcontextprotocol/sdk/client/index.js') ? undefined : '@modelcontextprotocol/sdk is not installed in node_modules'),
    install: 'npm ci',
    speaks: legacyByDefault(false),
  },
  'ts-v2': {
    id: 'ts-v2', sdk: '@modelcontextprotocol/client 2.4.0 (TypeScript SDK v2)', launch: node('ts-v2.ts'),
    missing: () => (resolvable('@modelcontextprotocol/client') ? undefined : '@modelcontextprotocol/client is not installed in node_modules'),
    install: 'npm ci',
    speaks: legacyByDefault(true),
  },
  python: {
    id: 'python', sdk: 'mcp 2.3.0 (Python SDK)', launch: async () => ({ command: found(VENV_PYTHON), args: [join(CLIENTS_DIR, 'python-client.py')] }),
    missing: () => notFound(VENV_PYTHON, 'no Python virtual environment with the mcp SDK'),
    // A getter: the executable says it runs the process only after this module may have loaded.
    get install() { return setupCommand(); },
    speaks: anyByDefault,
  },
  go: {
    id: 'go', sdk: 'github.com/modelcontextprotocol/go-sdk v1.8.0 (Go SDK)', launch: async () => ({ command: found(GO_BINARY), args: [] }),
    missing: () => notFound(GO_BINARY, 'the Go client is not built'),
    get install() { return setupCommand(); },
    speaks: anyByDefault,
  },
};

/** `--clients ts-v1,go`: the ids, or the reason the list is bad usage. */
export function parseClients(value: string): ClientId[] | string {
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) return '--clients selects no client';
  const unknown = ids.filter((id) => !(CLIENT_IDS as readonly string[]).includes(id));
  if (unknown.length > 0) return `--clients: unknown client ${unknown.map((u) => `"${u}"`).join(', ')} (known: ${CLIENT_IDS.join(', ')})`;
  return [...new Set(ids)] as ClientId[];
}
