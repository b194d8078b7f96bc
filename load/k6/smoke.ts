/**
 * The CI smoke run: stateless-post.ts with LOAD_SCENARIO forced to `smoke`: tools-list and the streaming
 * schedule-preview side by side at a low arrival rate for a few seconds (defaults 10/s each for 3 s), gated on
 * every reply passing (reply_ok rate==1) and no failed request. Other inputs as in inputs.ts.
 *
 *   MCP_BASE_URL=http://127.0.0.1:8080 MCP_API_KEY=... k6 run load/k6/smoke.ts
 */
import { checkTarget, readInputs } from './inputs.ts';
import { summaryOutputs, type SummaryData } from './summary.ts';
import { buildOptions, executionSegment, prepareTraffic, ranScenarios, sendNext, warnIfArchivedShapeDiffers } from './traffic.ts';

const inputs = readInputs({ ...__ENV, LOAD_SCENARIO: 'smoke' });
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
