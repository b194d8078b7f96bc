import type { Requirement } from './types.js';

/** tools/call: replies, results, errors, the `published` filter and plan caps (service.md §Endpoints 1, §Events, §Limits; MCP server/tools). */
export const callsRequirements: Requirement[] = [
  {
    id: 'calls-non-streaming-json',
    group: 'calls',
    level: 'MUST',
    source: 'service.md §Endpoints 1 rule 3; §Events rule 3; MCP 2025-11-25 basic/transports §Sending Messages 5',
    text: '"A normal tool call gets a single JSON-RPC reply." "All other tools reply with one JSON-RPC reply." (the server MUST return `Content-Type: application/json`, to return one JSON object, or `text/event-stream`)',
  },
  {
    id: 'calls-result-shape',
    group: 'calls',
    level: 'MUST',
    source: 'MCP 2025-11-25 schema CallToolResult, ContentBlock (TOOL-06)',
    text: 'CallToolResult: `content: ContentBlock[]` (text, image, audio, resource_link, resource); `isError?: boolean`; `structuredContent?: { [key: string]: unknown }`.',
  },
  {
    id: 'calls-structured-content-schema',
    group: 'calls',
    level: 'MUST',
    source: 'MCP 2025-11-25 server/tools §Output Schema (TOOL-04)',
    text: 'If an output schema is provided: Servers **MUST** provide structured results that conform to this schema.',
  },
  {
    id: 'calls-text-mirrors-structured',
    group: 'calls',
    level: 'SHOULD',
    source: 'MCP 2025-11-25 server/tools §Structured Content (TOOL-05)',
    text: 'For backwards compatibility, a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block.',
  },
  {
    id: 'calls-unknown-tool-protocol-error',
    group: 'calls',
    level: 'MUST',
    source: 'MCP 2025-11-25 server/tools §Error Handling (TOOL-07); JSON-RPC 2.0 §5.1',
    text: 'Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools. Example protocol error: `{"code": -32602, "message": "Unknown tool: invalid_tool_name"}`.',
    generic: true,
  },
  {
    id: 'calls-invalid-arguments-rejected',
    group: 'calls',
    level: 'MUST',
    source: 'MCP 2025-11-25 server/tools §Security Considerations (TOOL-12); JSON-RPC 2.0 §5.1 (-32603 is an internal error)',
    text: 'Servers **MUST**: Validate all tool inputs.',
  },
  {
    id: 'calls-invalid-arguments-tool-error',
    group: 'calls',
    level: 'SHOULD',
    source: 'MCP 2025-11-25 server/tools §Error Handling (SEP-1303, TOOL-08)',
    text: 'Tool Execution Errors: Reported in tool results with `isError: true`: ... Input validation errors (e.g., date in wrong format, value out of range). Clients **SHOULD** provide tool execution errors to language models to enable self-correction.',
    revisions: ['2025-11-25', '2026-07-28'],
  },
  {
    id: 'calls-unknown-handle-tool-error',
    group: 'calls',
    level: 'INFO',
    source: 'MCP 2026-07-28 server/tools §Stateful Tools (non-normative guidance, TOOL-17)',
    text: 'Expiry errors. A call against an expired or unknown handle should return a tool execution error that says so, so the model can recover by creating a new one.',
  },
  {
    id: 'calls-published-filter-partitions',
    group: 'calls',
    level: 'MUST',
    source: 'service.md §Resources and their fields (Block); §States and transitions',
    text: '"`blocks.list` accepts a boolean argument `published`." "The only related notion is the `published` flag used as a filter of `blocks.list`; a boolean".',
  },
  {
    id: 'calls-plan-cap-tool-error',
    group: 'calls',
    level: 'MUST',
    source: 'service.md §Authentication 8; §Limits; MCP 2025-11-25 server/tools §Error Handling (business logic errors)',
    text: '"block authoring stays within the caps of the plan." "Plan caps apply to block authoring." Tool Execution Errors: Reported in tool results with `isError: true`: ... Business logic errors.',
  },
  {
    id: 'calls-plan-cap-no-partial-write',
    group: 'calls',
    level: 'MUST',
    source: 'service.md §Authentication 8; §Limits',
    text: '"block authoring stays within the caps of the plan." A create refused at the cap writes nothing: the blocks listed are exactly the creates that succeeded.',
  },
];
