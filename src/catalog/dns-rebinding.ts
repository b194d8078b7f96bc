import type { Requirement } from './types.js';

/**
 * MCP's transport security against DNS rebinding (issue 35): a page of another origin that rebinds its name
 * to the server's address reaches a local server from the user's browser. Not the `origin` group, which is
 * about redirects. The official conformance suite's `dns-rebinding-protection` scenario sends a foreign
 * Host and Origin to a loopback server; these rows send that, a foreign Origin alone and a foreign Host alone.
 */
const TRANSPORTS = 'MCP basic/transports §Security Warning (TRN-32); conformance scenario dns-rebinding-protection';

export const dnsRebindingRequirements: Requirement[] = [
  {
    id: 'dns-rebinding-origin-validated',
    group: 'dns-rebinding',
    level: 'MUST',
    source: `${TRANSPORTS} (2025-03-26 and later)`,
    text: 'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks. (Served on loopback, an origin of another host is never valid: a request carrying one, with a foreign Host as a rebound page sends it or with the local Host, is refused. On another target an origin is known invalid only when the profile declares its "allowedOrigins".)',
  },
  {
    id: 'dns-rebinding-origin-403',
    group: 'dns-rebinding',
    level: 'MUST',
    source: `${TRANSPORTS} (2025-11-25 and later; earlier revisions say only "MUST validate")`,
    text: 'If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden. The HTTP response body MAY comprise a JSON-RPC error response that has no id. (Judged on a request whose only fault is its Origin: the target\'s own Host.)',
    revisions: ['2025-11-25', '2026-07-28'],
  },
  {
    id: 'dns-rebinding-host-validated',
    group: 'dns-rebinding',
    level: 'SHOULD',
    source: `${TRANSPORTS}; TypeScript SDK localhostHostValidation, Python SDK TransportSecuritySettings.allowed_hosts`,
    text: 'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks. (The conformance scenario: a localhost server "MUST validate the Host or Origin header". Served on loopback, a request naming another host and carrying no Origin, as a browser\'s same-origin GET after a rebinding does, is refused.)',
    levelReason: 'MCP\'s sentence names the Origin header only; validating Host is how the SDKs\' DNS-rebinding protection and the official conformance suite enforce it, and the only defence where a browser sends no Origin, so a server without it is a warning.',
  },
];
