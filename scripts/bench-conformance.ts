import { cpus } from 'node:os';
import { parseCommandLine } from '../src/kit/command-line.js';
import { exitStatus, main } from '../src/kit/main.js';
import { numberOption } from '../src/kit/options.js';
import { runConformanceChild } from '../src/cli/spawn-conformance.js';

const USAGE = `Usage: npm run bench:conformance -- [--runs <n>]

Times the full default conformance run (every suite, embedded reference server) end to end, as a user
runs it (a fresh process each time), and compares the median wall time with the target: under 15 s.

${exitStatus('target met', 'target missed', 'a timed run that does not pass (its timing means nothing)')}`;
const TARGET_S = 15;

await main({ usage: USAGE }, async () => {
  const { values } = parseCommandLine(USAGE, { runs: { type: 'string' } });
  const runs = numberOption('--runs', values.runs, { integer: true, min: 1, max: 10, fallback: 3 });

  console.log(`machine   ${cpus().length} cores, ${cpus()[0]?.model.trim()}, node ${process.version}`);
  const times: number[] = [];
  for (let i = 1; i <= runs; i++) {
    const run = await runConformanceChild(['--seed', String(i)], 300_000);
    const t = run.results?.totals;
    console.log(`run ${i}/${runs}  ${(run.durationMs / 1000).toFixed(2)} s wall (suites ${((run.results?.durationMs ?? 0) / 1000).toFixed(2)} s), exit ${run.code}` +
      (t ? `, ${t.pass} pass, ${t.fail} fail, ${t.warn} warn, ${t.notTestable} not testable, ${t.untested} untested` : ''));
    if (run.code !== 0) {
      console.log(run.stderr.slice(-2000));
      throw new Error(`run ${i} exited ${run.code}: it did not pass against the reference server, so the timing is not meaningful`);
    }
    times.push(run.durationMs / 1000);
  }
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  console.log(`median    ${median.toFixed(2)} s (min ${Math.min(...times).toFixed(2)}, max ${Math.max(...times).toFixed(2)}); target < ${TARGET_S} s: ${median < TARGET_S ? 'met' : 'NOT MET'}`);
  return median < TARGET_S ? 0 : 1;
});
