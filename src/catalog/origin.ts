import type { Requirement } from './types.js';

/**
 * The endpoint answers for itself: no request leaves the target's origin (issue 13). A redirect would have a
 * client send its request again, body and `Authorization` header included, to the host the Location names.
 */
export const originRequirements: Requirement[] = [
  {
    id: 'origin-no-cross-origin-redirect',
    group: 'origin',
    level: 'MUST',
    source: 'service.md §What the service does; §Endpoints 1 (Method POST, Path /api/mcp/v1); RFC 9110 §15.4 (a 3xx asks the client to send the request again to the Location; a 307/308 keeps the method and body)',
    text: 'There is exactly one MCP endpoint: `{base_url}/api/mcp/v1`. Every MCP-capable client uses the same endpoint and the same way of authenticating.',
  },
];
