import type { Requirement } from './types.js';

/**
 * The stdio proxy (`--target stdio`): MCP over a child process's stdin/stdout, forwarded to the HTTP
 * endpoint. Checked by talking to the command itself; see spec-requirements.md STDIO-01..12.
 */
export const stdioRequirements: Requirement[] = [
  {
    id: 'stdio-initialize',
    group: 'stdio',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/lifecycle (Initialization); spec-requirements STDIO-08',
    text: 'The server MUST respond with its own capabilities and information.',
  },
  {
    id: 'stdio-final-result-only',
    group: 'stdio',
    level: 'MUST',
    source: 'service.md §Events rule 4',
    text: 'The stdio proxy forwards only the final result to its stdio client; intermediate progress is not bridged.',
  },
  {
    id: 'stdio-ids-kept',
    group: 'stdio',
    level: 'MUST',
    source: 'JSON-RPC 2.0 §5 (id); spec-requirements STDIO-06',
    text: 'It MUST be the same as the value of the id member in the Request Object.',
  },
  {
    id: 'stdio-notification-no-reply',
    group: 'stdio',
    level: 'MUST',
    source: 'JSON-RPC 2.0 §4.1; MCP 2025-11-25 basic (Notifications); spec-requirements RPC-05',
    text: 'The Server MUST NOT reply to a Notification, including those that are within a batch request.',
  },
  {
    id: 'stdio-stdout-only-messages',
    group: 'stdio',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/transports §stdio; spec-requirements STDIO-02, STDIO-04',
    text: 'The server MUST NOT write anything to its stdout that is not a valid MCP message.',
  },
  {
    id: 'stdio-newline-delimited',
    group: 'stdio',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/transports §stdio; spec-requirements STDIO-01',
    text: 'Messages are delimited by newlines, and MUST NOT contain embedded newlines.',
  },
  {
    id: 'stdio-bad-line-recovers',
    group: 'stdio',
    level: 'MUST',
    source: 'JSON-RPC 2.0 §5 and §5.1 (-32700 Parse error); spec-requirements STDIO-12',
    text: 'When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.',
  },
  {
    id: 'stdio-cancel-no-reply',
    group: 'stdio',
    level: 'SHOULD',
    source: 'MCP 2025-11-25 basic/utilities/cancellation; spec-requirements STDIO-10',
    text: 'Receivers of cancellation notifications SHOULD: stop processing the cancelled request, free associated resources, not send a response for the cancelled request.',
  },
  {
    id: 'stdio-forwards-results',
    group: 'stdio',
    level: 'MUST',
    source: 'service.md §Endpoints 1 rule 1; §What the service does (the stdio proxy); spec-requirements STDIO-07',
    text: "The server's `tools/list` is the source of truth for the tool set.",
  },
  {
    id: 'stdio-exits-on-eof',
    group: 'stdio',
    level: 'SHOULD',
    source: 'MCP 2025-06-18 basic/lifecycle §Shutdown (stdio); MCP 2026-07-28 basic/transports/stdio; spec-requirements STDIO-09',
    text: 'The client SHOULD initiate shutdown by first closing the input stream to the child process (the server), then waiting for the server to exit; servers SHOULD exit promptly on stdin EOF.',
  },
  {
    id: 'stdio-key-not-printed',
    group: 'stdio',
    level: 'MUST',
    source: 'service.md §Authentication 7; MCP 2025-11-25 basic/authorization (stdio takes credentials from the environment); spec-requirements AUTH-12',
    text: 'It is to be treated as a password: one per device, rotated when a person leaves, never committed to version control.',
  },
];
