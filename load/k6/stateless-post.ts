/**
 * Stateless POST throughput under an open model: one constant-arrival-rate k6 scenario per selected load
 * scenario (LOAD_SCENARIO), each iteration one self-contained POST from the scenario's weighted cycle.
 * Plain k6: it imports only k6 modules and the shared plain modules, and reads its inputs from the
 * environment (see inputs.ts), so it runs unchanged under `k6 run`, `k6 cloud run` and k6-operator.
 *
 *   MCP_BASE_URL=http://127.0.0.1:8080 MCP_API_KEY=... LOAD_SCENARIO=mix LOAD_RATE=200 k6 run load/k6/stateless-post.ts
 */
import { checkTarget, readInputs } from './inputs.ts';
import { summaryOutputs, type SummaryData } from './summary.ts';
import { buildOptions, executionSegment, prepareTraffic, ranScenarios, sendNext, warnIfArchivedShapeDiffers } from './traffic.ts';

const inputs = readInputs(__ENV);
const traffic = prepareTraffic(inputs);

export const options = buildOptions(inputs);

export function setup(): void {
  checkTarget(inputs);
  warnIfArchivedShapeDiffers(inputs);
}

export default function (): void {
  sendNext(traffic, inputs);
}

export function handleSummary(data: SummaryData): Record<string, string> {
  return summaryOutputs(data, inputs, ranScenarios(), executionSegment()?.segment);
}
