import { cpus } from 'node:os';
import { parseCommandLine, usageError } from '../src/kit/command-line.js';
import { runConformanceChild } from '../src/cli/spawn-conformance.js';

const USAGE = `Usage: npm run bench:conformance -- [--runs <n>]

Times the full default conformance run (every suite, embedded reference server) end to end, as a user
runs it (a fresh process each time), and compares the median wall time with the target: under 15 s.`;
const TARGET_S = 15;

const { values } = parseCommandLine(USAGE, { runs: { type: 'string' } });
const runs = Number(values.runs ?? 3);
if (!Number.isInteger(runs) || runs < 1 || runs > 10) usageError(USAGE, `--runs must be 1-10 (got "${values.runs}")`);

console.log(`machine   ${cpus().length} cores, ${cpus()[0]?.model.trim()}, node ${process.version}`);
const times: number[] = [];
for (let i = 1; i <= runs; i++) {
  const run = await runConformanceChild(['--seed', String(i)], 300_000);
  const t = run.results?.totals;
  console.log(`run ${i}/${runs}  ${(run.durationMs / 1000).toFixed(2)} s wall (suites ${((run.results?.durationMs ?? 0) / 1000).toFixed(2)} s), exit ${run.code}` +
    (t ? `, ${t.pass} pass, ${t.fail} fail, ${t.warn} warn, ${t.notTestable} not testable, ${t.untested} untested` : ''));
  if (run.code !== 0) {
    console.log(`the run did not pass against the reference server: the timing is not meaningful\n${run.stderr.slice(-2000)}`);
    process.exit(1);
  }
  times.push(run.durationMs / 1000);
}
const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
console.log(`median    ${median.toFixed(2)} s (min ${Math.min(...times).toFixed(2)}, max ${Math.max(...times).toFixed(2)}); target < ${TARGET_S} s: ${median < TARGET_S ? 'met' : 'NOT MET'}`);
process.exit(median < TARGET_S ? 0 : 1);
