import type { Requirement } from './types.js';

/** The version in the path, and the per-plan rate limits as far as HTTP defines their signalling. */
export const versioningRequirements: Requirement[] = [
  {
    id: 'version-v1-path',
    group: 'versioning',
    level: 'MUST',
    source: 'service.md §Versioning; §Endpoints 1',
    text: 'The version is carried in the path: the MCP endpoint ends in `/v1`.',
  },
  {
    id: 'version-other-paths-404',
    group: 'versioning',
    level: 'MUST',
    source: 'service.md §Endpoints ("There is exactly one MCP endpoint"); RFC 9110 §15.5.5',
    text: 'There is exactly one MCP endpoint: `{base_url}/api/mcp/v1`.',
  },
  {
    // RFC 6585 makes Retry-After a MAY; the harness expects it at SHOULD strength: MCP defines no
    // rate-limit signalling at all (RATE-01), so it is the only machine-readable explanation a 429 can give.
    id: 'rate-limit-retry-after',
    group: 'versioning',
    level: 'SHOULD',
    source: 'service.md §Limits ("Per-plan rate limits exist"); RFC 6585 §4 (RATE-03); RFC 9110 §10.2.3 (RATE-05)',
    text: 'The response representations SHOULD include details explaining the condition, and MAY include a Retry-After header indicating how long to wait before making a new request. (Retry-After = HTTP-date / delay-seconds.)',
  },
  {
    id: 'rate-limit-retry-after-honest',
    group: 'versioning',
    level: 'SHOULD',
    source: 'RFC 9110 §10.2.3; draft-ietf-httpapi-ratelimit-headers-11 §6 (RATE-08)',
    text: 'Servers send the "Retry-After" header field to indicate how long the user agent ought to wait before making a follow-up request.',
  },
];
