/**
 * The load scenarios, defined once for both engines: autocannon (Node) imports this module, and so do the
 * k6 scripts (k6 compiles TypeScript itself). So this file must stay plain: no Node or k6 imports, no I/O.
 *
 * The service is stateless ("A fresh server instance is built for every POST"), so every request is a
 * self-contained POST with the Bearer key: no initialize, no session id. The arguments are written here,
 * since a module without I/O cannot read the reference profile (profiles/reference.json): they are
 * copies of its recipes, which test/load/load-scenarios.test.ts holds to the profile. `schedule.preview`
 * takes its streaming recipe's; `blocks.list` its listBlocks recipe's plus `published: true` (the one
 * argument the description shows); `workspace.get` none (the profile has no recipe for it).
 */

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number;
  method: string;
  params?: Record<string, unknown>;
}

export interface LoadRequest {
  /** Label in reports and metrics, e.g. `tools/list` or `blocks.list`. */
  name: string;
  /** Relative share of the scenario's traffic. */
  weight: number;
  body: JsonRpcRequest;
  /**
   * "For these five tools the response Content-Type is text/event-stream"; "the body carries progress
   * notifications, then ends with a final result event." The reply is checked for at least `minProgress`
   * progress notifications before the result.
   */
  streaming?: { minProgress: number };
}

export interface Scenario {
  name: string;
  description: string;
  requests: LoadRequest[];
}

/** The revision every load request declares: a 2025-era stateless Streamable HTTP exchange. */
export const LOAD_PROTOCOL_VERSION = '2025-06-18';
export const MCP_PATH = '/api/mcp/v1';
export const PROGRESS_TOKEN = 'load';

const call = (id: number, tool: string, args: Record<string, unknown>, progress = false): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: tool, arguments: args, ...(progress && { _meta: { progressToken: PROGRESS_TOKEN } }) },
});

const TOOLS_LIST: LoadRequest = { name: 'tools/list', weight: 1, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } };
const BLOCKS_LIST: LoadRequest = { name: 'blocks.list', weight: 1, body: call(2, 'blocks.list', { published: true }) };
const WORKSPACE_GET: LoadRequest = { name: 'workspace.get', weight: 1, body: call(3, 'workspace.get', {}) };
const SCHEDULE_PREVIEW: LoadRequest = {
  name: 'schedule.preview',
  weight: 1,
  body: call(4, 'schedule.preview', { expression: '*/30 9-17 * * 1-5', count: 3 }, true),
  streaming: { minProgress: 1 },
};

export const SCENARIOS: readonly Scenario[] = [
  { name: 'tools-list', description: 'tools/list: the stateless POST every client sends first', requests: [TOOLS_LIST] },
  { name: 'blocks-list', description: 'tools/call blocks.list {published: true}: a read through the workspace store', requests: [BLOCKS_LIST] },
  { name: 'workspace-get', description: 'tools/call workspace.get: a non-streaming call, one JSON reply', requests: [WORKSPACE_GET] },
  {
    name: 'schedule-preview',
    description: 'tools/call schedule.preview with a progress token: a streaming call (progress events, then the result)',
    requests: [SCHEDULE_PREVIEW],
  },
  {
    name: 'mix',
    description: 'weighted mix: tools/list 4, blocks.list 3, workspace.get 2, schedule.preview 1',
    requests: [
      { ...TOOLS_LIST, weight: 4 },
      { ...BLOCKS_LIST, weight: 3 },
      { ...WORKSPACE_GET, weight: 2 },
      { ...SCHEDULE_PREVIEW, weight: 1 },
    ],
  },
];

/** Short scenarios for CI smoke runs. */
export const SMOKE_SCENARIOS = ['tools-list', 'schedule-preview'] as const;

export function scenarioByName(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

/** Headers of every load request. The key is only ever placed here, never in a report. */
export function requestHeaders(apiKey: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LOAD_PROTOCOL_VERSION,
    authorization: `Bearer ${apiKey}`,
  };
}

/**
 * One cycle of the scenario's requests in weighted order, interleaved rather than grouped (smooth weighted
 * round-robin, as nginx balances upstreams): weights 4:3:2:1 give a cycle of 10 in which no request type
 * runs in a long streak. Both engines walk this cycle, so they send the same mix.
 */
export function weightedCycle(scenario: Scenario): LoadRequest[] {
  const weights = scenario.requests.map((r) => r.weight);
  if (weights.some((w) => !Number.isInteger(w) || w < 1)) throw new Error(`scenario ${scenario.name}: weights must be positive integers`);
  const total = weights.reduce((a, b) => a + b, 0);
  const current = weights.map(() => 0);
  const cycle: LoadRequest[] = [];
  for (let n = 0; n < total; n++) {
    let best = 0;
    for (let i = 0; i < weights.length; i++) {
      current[i]! += weights[i]!;
      if (current[i]! > current[best]!) best = i;
    }
    current[best]! -= total;
    cycle.push(scenario.requests[best]!);
  }
  return cycle;
}
