import type { Requirement } from './types.js';

/** The version in the path (the rate-limit rows live in rate-limit.ts). */
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
];
