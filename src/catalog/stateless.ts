import type { Requirement } from './types.js';

/** The service keeps no session state: a fresh server instance per POST, no session ids, POST only. */
export const statelessRequirements: Requirement[] = [
  {
    id: 'stateless-no-initialize',
    group: 'stateless',
    level: 'MUST',
    source: 'service.md §What the service does; §Limits; MCP 2025-11-25 basic/lifecycle (LIF-05, informational for a stateless server)',
    text: 'The server keeps no session state. A fresh server instance is built for every POST, so a client keeps no session.',
  },
  {
    id: 'stateless-no-session-id',
    group: 'stateless',
    level: 'MUST',
    source: 'service.md §What the service does; MCP 2025-11-25 basic/transports, Session Management 1 (TRN-19); 2026-07-28 streamable-http, Backward Compatibility (TRN-21)',
    text: 'The server keeps no session state. [...] so a client keeps no session. (2026-07-28: "do not mint or echo session IDs".)',
  },
  {
    id: 'stateless-bogus-session-ignored',
    group: 'stateless',
    level: 'MUST',
    source: 'service.md §Limits; MCP 2026-07-28 streamable-http, Backward Compatibility (TRN-21); 2025-11-25 basic/transports, Session Management 2-3 (TRN-20)',
    text: 'The server keeps no session state between POSTs. (2026-07-28: "An `Mcp-Session-Id` header on a request: ignore it, and do not mint or echo session IDs.")',
  },
  {
    id: 'stateless-get-405',
    group: 'stateless',
    level: 'SHOULD',
    source: 'MCP 2026-07-28 streamable-http, Backward Compatibility; 2025-11-25 basic/transports, Listening for Messages 3 (TRN-16); service.md §Endpoints 1 (Method: POST)',
    text: 'HTTP GET or DELETE to the MCP endpoint: respond with `405 Method Not Allowed`.',
    levelReason: 'The 2026-07-28 sentence is an instruction without a keyword, and the 2025 revisions allow an SSE stream as well as 405, so demanding exactly 405 is a warning.',
  },
  {
    id: 'stateless-delete-405',
    group: 'stateless',
    level: 'SHOULD',
    source: 'MCP 2026-07-28 streamable-http, Backward Compatibility; 2025-11-25 basic/transports, Session Management 5 (TRN-18)',
    text: 'HTTP GET or DELETE to the MCP endpoint: respond with `405 Method Not Allowed`.',
    levelReason: 'The 2026-07-28 sentence is an instruction without a keyword and the 2025 revisions make 405 for DELETE a MAY, so another answer is a warning.',
  },
  {
    id: 'stateless-405-allow',
    group: 'stateless',
    level: 'MUST',
    source: 'RFC 9110 §15.5.6 (TRN-17)',
    text: 'The origin server MUST generate an Allow header field in a 405 response containing a list of the target resource\'s currently supported methods.',
  },
  {
    id: 'stateless-any-instance',
    group: 'stateless',
    level: 'MUST',
    source: 'service.md §What the service does; §Limits; MCP 2026-07-28 basic/index (LIF-11)',
    text: 'A fresh server instance is built for every POST, so a client keeps no session. The server keeps no session state between POSTs.',
  },
];
