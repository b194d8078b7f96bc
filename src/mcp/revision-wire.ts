import { modernHeaders, PROTOCOL_VERSION_META_KEY } from '../../service/reference-server/stdio-proxy/headers.js';
import { REVISIONS, type Revision } from '../catalog/types.js';
import { isObject } from './tool-result.js';

/*
 * What a request must carry to speak one protocol revision, derived from its JSON-RPC body:
 *
 * - 2025-03-26: nothing (a missing `MCP-Protocol-Version` means 2025-03-26).
 * - 2025-06-18, 2025-11-25: "If using HTTP, the client MUST include the `MCP-Protocol-Version:
 *   <protocol-version>` HTTP header on all subsequent requests to the MCP server".
 * - 2026-07-28 (no initialize): every request carries the `_meta` envelope
 *   (`io.modelcontextprotocol/protocolVersion`, `io.modelcontextprotocol/clientCapabilities`, and the
 *   SHOULD `io.modelcontextprotocol/clientInfo`) and the standard headers `MCP-Protocol-Version`,
 *   `Mcp-Method` and, where the method names a target, `Mcp-Name`, which must match the body (SEP-2243).
 *
 * Only well-formed JSON-RPC requests and notifications are decorated: bodies a check malforms on purpose go
 * out as the check wrote them. A header the check (or `--header`) sets explicitly always wins.
 */

export const MODERN: Revision = '2026-07-28';
export { PROTOCOL_VERSION_META_KEY };
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_INFO = { name: 'mcp-conformance-harness', version: '1' };

/** The 2025-era revisions, oldest first. */
export const LEGACY_REVISIONS: readonly Revision[] = REVISIONS.filter((r) => r !== MODERN);

export function isRevision(value: unknown): value is Revision {
  return typeof value === 'string' && (REVISIONS as readonly string[]).includes(value);
}

/**
 * The revision ordinary (revision-independent) checks speak: the one given with `--protocol`, else the newest
 * 2025-era revision the target speaks (the wire most clients use today), else 2026-07-28; undefined when the
 * target was found to speak none (requests then carry no revision headers, as a bare client's would).
 */
export function primaryRevision(protocol: 'auto' | Revision, spoken: readonly Revision[]): Revision | undefined {
  if (protocol !== 'auto') return protocol;
  const legacy = [...LEGACY_REVISIONS].reverse().find((r) => spoken.includes(r));
  return legacy ?? (spoken.includes(MODERN) ? MODERN : undefined);
}

/**
 * A JSON-RPC 2.0 request or notification a check did not malform: `jsonrpc: "2.0"`, a string method, an id
 * that is absent, a string or a number, params absent or an object, `_meta` absent or an object.
 */
function wellFormed(body: unknown): body is { method: string; params?: Record<string, unknown> } {
  if (!isObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') return false;
  if ('result' in body || 'error' in body) return false;
  if ('id' in body && typeof body.id !== 'string' && !(typeof body.id === 'number' && Number.isFinite(body.id))) return false;
  if ('params' in body && !isObject(body.params)) return false;
  const meta = isObject(body.params) ? body.params._meta : undefined;
  return meta === undefined || isObject(meta);
}

/** The value of a header in `headers` whatever its case. */
function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

export interface SpokenRequest {
  /** Headers the revision adds (lower case), without those `explicit` already sets. */
  headers: Record<string, string>;
  /** The body to send: decorated with the 2026-07-28 envelope where it applies, else the body given. */
  body: unknown;
  /** The revision whose wire this is (undefined: none). */
  revision?: Revision;
}

/**
 * The wire of `revision` for `body` (`undefined` body: raw text the check sends as is). Which revision a
 * request speaks: a known revision the check names in an explicit `MCP-Protocol-Version`, else the one in the
 * body's own `_meta` envelope, else `revision`. An explicit header that names no known revision (a check
 * probing a bad value) still replaces the header, and the rest of the wire stays `revision`'s.
 */
export function speakRevision(revision: Revision | undefined, body: unknown, explicit: Record<string, string> = {}): SpokenRequest {
  const named = headerValue(explicit, 'mcp-protocol-version');
  const formed = wellFormed(body);
  const envelope = formed && isObject(body.params?._meta) ? body.params!._meta[PROTOCOL_VERSION_META_KEY] : undefined;
  const rev = isRevision(named) ? named : isRevision(envelope) ? envelope : revision;
  let headers: Record<string, string> = {};
  let out = body;
  if (rev === MODERN) {
    if (formed) {
      const meta: Record<string, unknown> = { ...(body.params?._meta as Record<string, unknown> | undefined) };
      // Fill only what the check left out: a check may set its own envelope values on purpose.
      if (!(PROTOCOL_VERSION_META_KEY in meta)) meta[PROTOCOL_VERSION_META_KEY] = MODERN;
      if (!(CLIENT_CAPABILITIES_META_KEY in meta)) meta[CLIENT_CAPABILITIES_META_KEY] = {};
      if (!(CLIENT_INFO_META_KEY in meta)) meta[CLIENT_INFO_META_KEY] = CLIENT_INFO;
      const params = { ...(body.params ?? {}), _meta: meta };
      out = { ...body, params };
      headers = modernHeaders(MODERN, body.method, params);
    } else {
      headers = { 'mcp-protocol-version': MODERN };
    }
  } else if (rev !== undefined && rev !== '2025-03-26') {
    headers = { 'mcp-protocol-version': rev };
  }
  for (const name of Object.keys(headers)) if (headerValue(explicit, name) !== undefined) delete headers[name];
  return { headers, body: out, ...(rev !== undefined && { revision: rev }) };
}
