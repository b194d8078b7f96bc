import { CLIENT_IDS, type ClientId } from '../interop/clients.js';
import type { Requirement } from './types.js';

/**
 * The interop matrix (src/interop/): the official SDK clients agents use, each run as its own program against
 * the target, configured as an `mcpServers` entry is. One row per client and step, tagged with the client; the
 * clients' own parsers and state machines are the point: a reply one SDK accepts and another rejects fails
 * the other's row only.
 */
function rows(client: ClientId): Requirement[] {
  const row = (step: string, level: Requirement['level'], source: string, text: string): Requirement => ({ id: `interop-${client}-${step}`, group: 'interop-matrix', level, source, text, client });
  return [
    row('connect', 'MUST', 'service.md §What the service does; §Authentication 10 (an mcpServers entry: url plus headers with Authorization)',
      'Every MCP-capable client uses the same endpoint and the same way of authenticating.'),
    row('streaming', 'MUST', 'service.md §Events rules 1-2; MCP basic/utilities/progress',
      'The body carries progress notifications, then ends with a final `result` event.'),
    row('call', 'MUST', 'service.md §Endpoints 1 rule 3', 'A normal tool call gets a single JSON-RPC reply.'),
    row('bad-key', 'MUST', 'service.md §Authentication 1-3; MCP basic/authorization (a request without valid credentials is refused with 401)',
      'Every request to the MCP endpoint carries `Authorization: Bearer <API_KEY>`.'),
    row('stdio', 'MUST', 'service.md §What the service does; §Events rule 4',
      'The stdio proxy forwards only the final result to its stdio client; intermediate progress is not bridged.'),
  ];
}

export const interopMatrixRequirements: Requirement[] = CLIENT_IDS.flatMap(rows);
