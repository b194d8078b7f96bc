import type { Requirement } from './types.js';

/** tools/list: the tool set, its schemas and names (service.md §Endpoints 1 rules 1-2; MCP server/tools). */
export const toolsRequirements: Requirement[] = [
  {
    id: 'tools-list-result-shape',
    group: 'tools',
    level: 'MUST',
    source: 'MCP 2025-11-25 schema ListToolsResult, Tool (TOOL-01); server/utilities/pagination',
    text: 'ListToolsResult: `tools: Tool[]`, `nextCursor?: string`. A Tool has `name: string` and `inputSchema` (required); `title` and `description` are strings when present. Pagination: the server responds with "A current page of results" and "An optional `nextCursor` field if more results exist".',
    levelReason: 'The sentence is the MCP schema of the tools/list result, so a reply outside it is not a ListToolsResult at all: it binds as MUST. A nextCursor on every page (still there after 20 pages) claims results that never come: the tool list is never complete, judged here.',
  },
  {
    id: 'tools-described-tools-listed',
    group: 'tools',
    level: 'MUST',
    source: 'service.md §Resources and their fields (Block, Data source, Schedule); §Events; §Endpoints 1 rule 1',
    text: 'Block: "Authored through tools `blocks.create`, `blocks.build`, `blocks.list`." Data source: "Operated through `dataSources.testConnection` and `dataSources.triggerRefresh`." Schedule: "Operated through `schedule.preview`." "`tools/list` returns the list of tools the server offers."',
  },
  {
    id: 'tools-input-schema-compiles',
    group: 'tools',
    level: 'MUST',
    source: 'MCP 2025-11-25 server/tools §Tool; basic/index §JSON Schema usage (TOOL-03)',
    text: '`inputSchema`: "Defaults to 2020-12 if no `$schema` field is present"; "**MUST** be a valid JSON Schema object (not `null`)".',
  },
  {
    id: 'tools-input-schema-object-root',
    group: 'tools',
    level: 'MUST',
    source: 'MCP 2025-11-25 schema Tool.inputSchema (`type: "object"`); server/tools §Tool (TOOL-02)',
    text: 'Tool.inputSchema: `{ $schema?: string; type: "object"; properties?: {...}; required?: string[] }`.',
    levelReason: 'The MCP schema fixes `type: "object"` at the root of inputSchema: a schema of another type is outside the protocol the service speaks, so it binds as MUST.',
  },
  {
    id: 'tools-blocks-list-published-boolean',
    group: 'tools',
    level: 'MUST',
    source: 'service.md §Resources and their fields (Block); §States and transitions',
    text: '"`blocks.list` accepts a boolean argument `published`."',
  },
  {
    id: 'tools-name-format',
    group: 'tools',
    level: 'SHOULD',
    source: 'MCP 2025-11-25 server/tools §Tool Names (TOOL-09)',
    text: 'Tool names SHOULD be between 1 and 128 characters in length (inclusive). The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot (.). Tool names SHOULD be unique within a server.',
    revisions: ['2025-11-25', '2026-07-28'],
  },
  {
    id: 'tools-list-deterministic-order',
    group: 'tools',
    level: 'SHOULD',
    source: 'MCP 2026-07-28 server/tools §Capabilities (TOOL-13)',
    text: 'Servers **SHOULD** return tools in a deterministic order (i.e., the same ordering across requests when the underlying set of tools has not changed).',
    revisions: ['2026-07-28'],
  },
  {
    id: 'tools-list-invalid-cursor',
    group: 'tools',
    level: 'SHOULD',
    source: 'MCP 2025-11-25 server/utilities/pagination §Error Handling (TOOL-11)',
    text: 'Invalid cursors SHOULD result in an error with code -32602 (Invalid params).',
  },
];
