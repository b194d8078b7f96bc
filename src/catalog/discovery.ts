import type { Requirement } from './types.js';

const FILES = 'service.md §Endpoints 3';
const LLMS_TXT = 'llmstxt.org (AnswerDotAI/llms-txt nbs/index.qmd)';

/**
 * The three discovery files (service.md §Endpoints 3; spec-requirements DISC-01..DISC-08). llms.txt has a
 * public proposal; agent.md and llms-full.txt have none, so what is checked of them is that they are served
 * as text and agree with the service itself (`tools/list`, the endpoint, the key format, the bootstrap flow).
 */
export const discoveryRequirements: Requirement[] = [
  {
    id: 'discovery-files-served',
    group: 'discovery',
    level: 'MUST',
    source: `${FILES}; ${LLMS_TXT} (spec-requirements DISC-01, DISC-06, DISC-07)`,
    text: 'GET `/agent.md`: Compact operating guide for agents. GET `/llms.txt`: Short discovery index. GET `/llms-full.txt`: Complete agent context in one file. These are served on the application domain (the same {base_url} host).',
  },
  {
    id: 'discovery-content-type',
    group: 'discovery',
    level: 'SHOULD',
    source: `RFC 9110 §8.3; ${FILES} (spec-requirements DISC-08)`,
    text: 'A sender that generates a message containing content SHOULD generate a Content-Type header field in that message. (The files are Markdown text: `text/markdown` or `text/plain`, with `charset=utf-8`.)',
  },
  {
    id: 'discovery-llms-txt-h1',
    group: 'discovery',
    level: 'SHOULD',
    source: `${LLMS_TXT} (spec-requirements DISC-02); ${FILES}`,
    text: 'A file following the spec contains the following sections as markdown, in the specific order: An H1 with the name of the project or site. This is the only required section.',
    levelReason: 'llmstxt.org is a proposal the file is named after, while the description asks only for a "Short discovery index", so a file without its H1 is a warning.',
  },
  {
    id: 'discovery-llms-txt-structure',
    group: 'discovery',
    level: 'SHOULD',
    source: `${LLMS_TXT} (spec-requirements DISC-03, DISC-04)`,
    text: 'A blockquote with a short summary of the project; zero or more markdown sections of any type, except headings; zero or more markdown sections delimited by H2 headers, containing "file lists" of URLs. Each "file list" is a markdown list, containing a required markdown hyperlink [name](url), then optionally a : and notes about the file.',
    levelReason: 'llmstxt.org is a proposal the file is named after, while the description asks only for a "Short discovery index", so another structure is a warning.',
  },
  {
    id: 'discovery-links-resolve',
    group: 'discovery',
    level: 'SHOULD',
    source: `${LLMS_TXT} (spec-requirements DISC-04)`,
    text: 'Zero or more markdown sections delimited by H2 headers, containing "file lists" of URLs where further detail is available. (Each link on the service\'s own host answers GET below 400.)',
    levelReason: 'The proposal lists URLs "where further detail is available" without demanding that they resolve, and the description says nothing of links, so a link on the service\'s own host that does not resolve is a warning.',
  },
  {
    id: 'discovery-tools-exist',
    group: 'discovery',
    level: 'MUST',
    source: `service.md §Endpoints 1 (rule 1), §Versioning; ${FILES} (spec-requirements DISC-07)`,
    text: 'The server\'s `tools/list` is the source of truth for the tool set. (Every tool the discovery files name is in `tools/list`.)',
  },
  {
    id: 'discovery-full-complete',
    group: 'discovery',
    level: 'MUST',
    source: `${FILES} (llms-full.txt); §Endpoints 1 (rule 1)`,
    text: 'GET `/llms-full.txt`: Complete agent context in one file. (It names every tool of `tools/list`.)',
  },
  {
    id: 'discovery-agent-md-tools',
    group: 'discovery',
    level: 'SHOULD',
    source: `${FILES} (agent.md); §Events; §Resources (Block)`,
    text: 'GET `/agent.md`: Compact operating guide for agents. (It names the tools the description shows: the five streaming tools `blocks.create`, `blocks.build`, `dataSources.testConnection`, `dataSources.triggerRefresh`, `schedule.preview`, and `blocks.list`.)',
    levelReason: 'The description says what agent.md is (a compact operating guide), not what it names; naming the six tools it shows is the harness\'s reading of such a guide, so a guide without them is a warning.',
  },
  {
    id: 'discovery-bootstrap-flow',
    group: 'discovery',
    level: 'MUST',
    source: `${FILES}; §Endpoints 2`,
    text: 'They include the current agent-first bootstrap flow. (Each names `POST /api/agent/bootstrap`; the guide and the complete context also give `humanEmail`, `agentName`, `workspaceName`, `canvasName` and the reply\'s `apiKey` and `claimUrl`; the short index may leave those to them.)',
  },
  {
    id: 'discovery-describes-connection',
    group: 'discovery',
    level: 'SHOULD',
    source: `${FILES}; §Endpoints 1; §Authentication 1, 2 (spec-requirements DISC-07)`,
    text: 'Compact operating guide for agents; complete agent context in one file; short discovery index. (Each names the MCP endpoint `/api/mcp/v1` and `Authorization: Bearer` with a key of the form `<KEY_PREFIX>_live_<secret>`.)',
    levelReason: 'The description says what each file is, not what it names; naming the endpoint and the key form is the harness\'s reading of an operating guide and index, so a file without them is a warning.',
  },
  {
    id: 'discovery-endpoint-correct',
    group: 'discovery',
    level: 'MUST',
    source: `service.md §What the service does ("There is exactly one MCP endpoint"); ${FILES}`,
    text: 'There is exactly one MCP endpoint: `{base_url}/api/mcp/v1`. (Every MCP endpoint URL the discovery files give is that one.)',
  },
];
