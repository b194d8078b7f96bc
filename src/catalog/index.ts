import type { Requirement } from './types.js';
import { bootstrapRequirements } from './bootstrap.js';
import { authRequirements } from './auth.js';
import { toolsRequirements } from './tools.js';
import { callsRequirements } from './calls.js';
import { streamingRequirements } from './streaming.js';
import { statelessRequirements } from './stateless.js';
import { sessionRequirements } from './session.js';
import { jsonrpcRequirements } from './jsonrpc.js';
import { discoveryRequirements } from './discovery.js';
import { versioningRequirements } from './versioning.js';
import { rateLimitRequirements } from './rate-limit.js';
import { interopRequirements } from './interop.js';
import { interopMatrixRequirements } from './interop-matrix.js';
import { stdioRequirements } from './stdio.js';
import { modelRequirements } from './model.js';
import { originRequirements } from './origin.js';
import { wireRequirements } from './wire.js';
import { dnsRebindingRequirements } from './dns-rebinding.js';

/** The one catalog: every rule the harness checks, one file per requirement group. */
export const CATALOG: Requirement[] = [
  bootstrapRequirements, authRequirements, toolsRequirements, callsRequirements, streamingRequirements, statelessRequirements, sessionRequirements, jsonrpcRequirements, discoveryRequirements, versioningRequirements, rateLimitRequirements, interopRequirements, interopMatrixRequirements, stdioRequirements, modelRequirements, originRequirements,
  wireRequirements, dnsRebindingRequirements,
].flat();

export const byId = new Map(CATALOG.map((r) => [r.id, r]));

export function requirement(id: string): Requirement {
  const r = byId.get(id);
  if (!r) throw new Error(`unknown requirement id "${id}": add it to src/catalog first`);
  return r;
}

/** Whether --only selects the row `id`: an exact id or a prefix of it; an empty --only selects every row. The one reading of --only. */
export function onlySelects(only: readonly string[], id: string): boolean {
  return only.length === 0 || only.some((o) => id === o || id.startsWith(o));
}

/**
 * Rows selected by --only, the profile's kind and --clients. The generic profile judges the rules that hold for
 * any Streamable HTTP MCP server: `genericRows`, the rows some check judges under it (src/engine/check.ts genericRows).
 */
export function selectRequirements(only: string[], profileKind: 'service' | 'generic', clients: readonly string[] | undefined, genericRows: ReadonlySet<string>) {
  return (r: Requirement) =>
    (profileKind === 'service' || genericRows.has(r.id)) && onlySelects(only, r.id)
    && (!r.client || !clients || clients.includes(r.client));
}
