import type { Requirement } from './types.js';

/**
 * The five streaming tools (service.md §Events): each reply is an SSE stream of progress notifications
 * carrying the caller's token, then the final result, then the end of the stream.
 */
export const streamingRequirements: Requirement[] = [
  {
    id: 'stream-content-type',
    group: 'streaming',
    level: 'MUST',
    source: 'service.md §Events 1; §Endpoints 1 rule 4; MCP 2025-11-25 basic/transports (TRN-07)',
    text: 'For these five tools the response `Content-Type` is `text/event-stream`.',
  },
  {
    id: 'stream-progress-sent',
    group: 'streaming',
    level: 'MUST',
    source: 'service.md §Events 2',
    text: 'The body carries progress notifications, then ends with a final `result` event. (Under the generic profile: for the calls a profile declares streaming.)',
  },
  {
    id: 'stream-progress-token',
    group: 'streaming',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/utilities/progress, Progress Flow and Behavior Requirements 1 (PRG-01, PRG-02)',
    text: 'Progress notifications MUST only reference tokens that: Were provided in an active request; Are associated with an in-progress operation.',
  },
  {
    id: 'stream-progress-increasing',
    group: 'streaming',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/utilities/progress, Progress Flow (PRG-03)',
    text: 'The `progress` value MUST increase with each notification, even if the total is unknown.',
  },
  {
    id: 'stream-no-token-no-progress',
    group: 'streaming',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/utilities/progress, Behavior Requirements 1 (PRG-02)',
    text: 'Progress notifications MUST only reference tokens that: Were provided in an active request (a request without `progressToken` provided none).',
  },
  {
    id: 'stream-final-result-id',
    group: 'streaming',
    level: 'MUST',
    source: 'service.md §Events 2; JSON-RPC 2.0 §5; MCP 2025-11-25 basic/transports (TRN-08)',
    text: 'The body ... ends with a final `result` event; its `id` MUST be the same as the value of the id member in the Request Object.',
  },
  {
    id: 'stream-final-result-ok',
    group: 'streaming',
    level: 'MUST',
    source: 'service.md §Events 2; MCP 2025-11-25 server/tools, Error Handling (TOOL-06, TOOL-08)',
    text: 'The body carries progress notifications, then ends with a final `result` event. (A result with `isError: true` reports a failed call: "Tool Execution Errors: Reported in tool results with `isError: true`"; a call the profile does not declare meant to fail (`expectError`) must end in a successful result.)',
  },
  {
    id: 'stream-nothing-after-result',
    group: 'streaming',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/utilities/progress, Implementation Notes (PRG-06); service.md §Events 2',
    text: 'Progress notifications MUST stop after completion.',
  },
  {
    id: 'stream-closes',
    group: 'streaming',
    level: 'SHOULD',
    source: 'MCP 2025-11-25 basic/transports, Sending Messages 6; 2026-07-28 streamable-http, Receiving Messages (TRN-10)',
    text: 'After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream.',
  },
  {
    id: 'stream-get-unrelated',
    group: 'streaming',
    level: 'SHOULD',
    source: 'MCP 2025-11-25 basic/transports, Listening for Messages from the Server 4 (also 2025-03-26, 2025-06-18)',
    text: 'The server MAY send JSON-RPC requests and notifications on the stream. These messages SHOULD be unrelated to any concurrently-running JSON-RPC request from the client.',
    // The standalone GET stream belongs to the 2025-era sessions; 2026-07-28 has neither.
    revisions: ['2025-03-26', '2025-06-18', '2025-11-25'],
  },
  {
    id: 'stream-not-buffered',
    group: 'streaming',
    level: 'INFO',
    source: 'service.md §Events 2 and 5 (derived: progress is reported while the operation runs); DESIGN.md "Streaming checks"',
    text: 'The body carries progress notifications, then ends with a final `result` event. A client such as curl must disable output buffering to see progress as it arrives.',
    levelReason: 'The "must" binds the client (curl disables its buffering); that the service sends progress as the work runs is only presupposed, and MCP lets a server send progress at any frequency (PRG-05), so a stream flushed at once is an observation.',
  },
  {
    id: 'stream-isolated',
    group: 'streaming',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/transports, Multiple Connections 2 (TRN-14); 2026-07-28 streamable-http, Receiving Messages (TRN-09)',
    text: 'The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams.',
  },
  {
    id: 'stream-x-accel-buffering',
    group: 'streaming',
    level: 'SHOULD',
    source: 'MCP 2026-07-28 basic/transports/streamable-http, Receiving Messages (TRN-31)',
    text: 'When initiating an SSE stream, servers SHOULD include the `X-Accel-Buffering: no` header in the HTTP response.',
    revisions: ['2026-07-28'],
  },
];
