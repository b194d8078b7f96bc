/**
 * One open-model step of the capacity driver at a fixed rate, in a process of its own so that its CPU time is
 * measured apart (scripts/bench-capacity-driver.ts reads it from /proc). Prints one JSON line: requests sent,
 * send lag p50, p99 and max (ms).
 *
 *   node dist/scripts/bench/capacity-driver-child.js <mcp url> <rate> <seconds>
 */
import { OpenModelDriver } from '../../load/capacity/open-model-driver.js';
import { scenarioByName, weightedCycle } from '../../load/scenarios.js';

const [url, rate, seconds] = process.argv.slice(2);
const driver = new OpenModelDriver({ mcpUrl: url!, apiKey: 'bench', requests: weightedCycle(scenarioByName('tools-list')!), connections: 256, timeoutMs: 5000 });
const m = await driver.runStep(
  { rate: Number(rate), arrivals: 'constant', seed: 1, warmupMs: 0, windowMs: Number(seconds) * 1000, maxWindows: 1, thresholds: { latency: [], ttfp: [], ttfr: [] } },
  (_, final) => (final ? 'done' : 'wait'),
);
await driver.close();
console.log(JSON.stringify({ sent: driver.sentTotal, lagP50Ms: m.sendLag.percentile(50), lagP99Ms: m.sendLag.percentile(99), lagMaxMs: m.sendLag.summary().max, errors: m.errors }));
