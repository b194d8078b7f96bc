import type { Requirement } from './types.js';

/**
 * Session management of the 2025-era Streamable HTTP transport, for servers that assign `Mcp-Session-Id`
 * (2026-07-28 removed sessions). A server that keeps no session state (the service) makes them not applicable.
 */
const SESSION_REVISIONS: Requirement['revisions'] = ['2025-03-26', '2025-06-18', '2025-11-25'];
const SOURCE = 'MCP 2025-03-26, 2025-06-18, 2025-11-25 basic/transports, Session Management';

export const sessionRequirements: Requirement[] = [
  {
    id: 'session-id-visible-ascii',
    group: 'session',
    level: 'MUST',
    source: `${SOURCE} 1 (TRN-19)`,
    text: 'The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).',
    revisions: SESSION_REVISIONS,
  },
  {
    id: 'session-terminated-404',
    group: 'session',
    level: 'MUST',
    source: `${SOURCE} 3 (TRN-20)`,
    text: 'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
    revisions: SESSION_REVISIONS,
  },
  {
    id: 'session-unknown-404',
    group: 'session',
    level: 'SHOULD',
    source: `${SOURCE} 3-4 (TRN-20), applied to a session ID the server does not hold`,
    text: 'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
    levelReason: 'The MUST is about a session the server terminated; a session ID it never issued is outside that sentence, and 404 for it is derived (the answer that sends a client to a new session), so another code is a warning.',
    revisions: SESSION_REVISIONS,
  },
  {
    id: 'session-new-after-404',
    group: 'session',
    level: 'SHOULD',
    source: `${SOURCE} 1 and 4`,
    text: 'The session ID SHOULD be globally unique and cryptographically secure. (A client that gets 404 for its session "MUST start a new session by sending a new InitializeRequest without a session ID attached": the server gives that initialize a new session, one that serves requests, never the ended one again.)',
    levelReason: 'The MUST in the quoted sentence binds the client; the server\'s part is the SHOULD on session ids, so a server that hands out an ended id again warns.',
    revisions: SESSION_REVISIONS,
  },
  {
    id: 'session-delete-ends',
    group: 'session',
    level: 'SHOULD',
    source: `${SOURCE} 5 (TRN-18)`,
    text: 'The server MAY respond to this request with HTTP 405 Method Not Allowed, indicating that the server does not allow clients to terminate sessions. (The request is the DELETE that clients "SHOULD send ... to explicitly terminate the session": a server that does not refuse it with 405 ends the session, and later requests in it are refused.)',
    revisions: SESSION_REVISIONS,
  },
];
