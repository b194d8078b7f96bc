import type { Requirement } from './types.js';

const LEGACY = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

/**
 * Interoperability with the official MCP SDK client (`@modelcontextprotocol/client`), configured the way the
 * description's `mcpServers` entry is: a URL and an `Authorization` header. Its own validation of every
 * reply is the point: a reply that the SDK rejects fails here even where the raw-wire checks are lenient.
 */
export const interopRequirements: Requirement[] = [
  {
    id: 'interop-sdk-legacy-connect',
    group: 'interop',
    level: 'MUST',
    source: 'service.md §What the service does; §Authentication 10; MCP 2025-11-25 basic/lifecycle (initialize handshake)',
    text: 'Every MCP-capable client uses the same endpoint and the same way of authenticating.',
    revisions: [...LEGACY],
  },
  {
    id: 'interop-sdk-legacy-streaming',
    group: 'interop',
    level: 'MUST',
    source: 'service.md §Events rules 1-2; MCP 2025-11-25 basic/utilities/progress',
    text: 'The body carries progress notifications, then ends with a final `result` event.',
    revisions: [...LEGACY],
  },
  {
    id: 'interop-sdk-modern-connect',
    group: 'interop',
    level: 'MUST',
    source: 'service.md §What the service does; MCP 2026-07-28 server/discover and basic/versioning (a client negotiating automatically selects the 2026-07-28 wire the server offers)',
    text: 'Every MCP-capable client uses the same endpoint and the same way of authenticating.',
    revisions: ['2026-07-28'],
  },
  {
    id: 'interop-sdk-modern-streaming',
    group: 'interop',
    level: 'MUST',
    source: 'service.md §Events rules 1-2; MCP 2026-07-28 basic/patterns/progress',
    text: 'The body carries progress notifications, then ends with a final `result` event.',
    revisions: ['2026-07-28'],
  },
];
