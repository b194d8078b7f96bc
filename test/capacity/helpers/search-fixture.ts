/**
 * A capacity search against a known-capacity endpoint (fixtures/capacity) in its own process, and the row the
 * closing notes report: true value, found value, found/true, allowed band.
 */
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CapacityReport, ScenarioCapacity } from '../../../load/capacity/capacity-result.js';
import { runCapacity, type CapacityRunOptions } from '../../../load/capacity/run-capacity.js';
import { parseSlo } from '../../../load/capacity/slo.js';
import { scenarioByName } from '../../../load/scenarios.js';
import { MCP_PATH } from '../../../load/scenarios.js';
import { residentBytes } from '../../../load/target.js';
import type { CapacitySpec } from '../../../fixtures/capacity/models.js';
import { spawnCapacityFixture } from '../../../fixtures/capacity/spawn.js';

export const ROWS_FILE = join(tmpdir(), 'known-capacity-rows.jsonl');

export interface FixtureSearch {
  report: CapacityReport;
  scenario: ScenarioCapacity;
}

export async function searchFixture(spec: CapacitySpec, slo: string, over: Partial<CapacityRunOptions> & { scenario?: string } = {}): Promise<FixtureSearch> {
  const child = await spawnCapacityFixture(spec);
  try {
    const name = over.scenario ?? 'tools-list';
    const report = await runCapacity({
      target: {
        kind: 'url', baseUrl: child.url, mcpUrl: `${child.url}${MCP_PATH}`, apiKey: 'fixture_live_key', description: `capacity fixture ${spec.model}`,
        serverStats: async () => ({ cpuMicros: await child.cpuMicros(), ...residentBytes(child.pid) }),
      },
      scenarios: [scenarioByName(name)!], slos: new Map([[name, parseSlo(slo)]]),
      maxRate: 2000, startRate: 100, tolerance: 0.05, arrivals: 'constant', seed: 1, warmupS: 0.5, windowS: 1, maxWindowS: 6, timeoutS: 5, connections: 256,
      calibrate: false, overload: false, soakFraction: 0.8, maxTimeS: 240,
      // Beside the rest of the tests on two cores, the generator is often late for a moment: run such a step again, up to four times.
      invalidRetries: 4,
      ...over,
    });
    return { report, scenario: report.scenarios[0]! };
  } finally {
    await child.stop();
  }
}

/** Prints and keeps the row: what the search should find, what it found, their ratio and the band it must fall in. */
export function row(name: string, truth: number, found: number | null, band: [number, number]): number {
  const ratio = found === null ? NaN : found / truth;
  const line = { name, truth: Math.round(truth * 10) / 10, found, ratio: Math.round(ratio * 1000) / 1000, band };
  console.log(`known capacity: ${name}: true ${line.truth}, found ${found}, found/true ${line.ratio}, band [${band.join(', ')}]`);
  appendFileSync(ROWS_FILE, `${JSON.stringify({ ...line, at: new Date().toISOString() })}\n`);
  return ratio;
}
