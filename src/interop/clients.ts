import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Revision } from '../catalog/types.js';
import { PACKAGE_ROOT, program } from '../kit/package-root.js';

/**
 * The official MCP SDK clients of the interop matrix (`src/interop/clients/README.md` is their contract):
 * how to run each one's program, how to tell whether its runtime is on this machine, and how to install it.
 * A client whose runtime is missing is not testable with that reason, never skipped in silence.
 */

const ROOT = PACKAGE_ROOT;
const CLIENTS_DIR = join(ROOT, 'src/interop/clients');
const SETUP = 'bash scripts/setup-interop.sh';

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

// Where setup puts the Python venv and the Go binary; MCP_INTEROP_TOOLS moves it (the tests use it to show a
// machine without them).
const TOOLS = process.env.MCP_INTEROP_TOOLS ?? join(ROOT, '.tools');
const VENV_PYTHON = join(TOOLS, 'venv/bin/python');
const GO_BINARY = join(TOOLS, 'bin/interop-go');
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
    id: 'python', sdk: 'mcp 2.3.0 (Python SDK)', launch: async () => ({ command: VENV_PYTHON, args: [join(CLIENTS_DIR, 'python-client.py')] }),
    missing: () => (existsSync(VENV_PYTHON) ? undefined : `no Python virtual environment with the mcp SDK at ${VENV_PYTHON}`),
    install: SETUP,
    speaks: anyByDefault,
  },
  go: {
    id: 'go', sdk: 'github.com/modelcontextprotocol/go-sdk v1.8.0 (Go SDK)', launch: async () => ({ command: GO_BINARY, args: [] }),
    missing: () => (existsSync(GO_BINARY) ? undefined : `the Go client is not built at ${GO_BINARY}`),
    install: SETUP,
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
