import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine } from '../src/kit/command-line.js';
import { exitStatus, main } from '../src/kit/main.js';
import { numberOption } from '../src/kit/options.js';
import { runConformanceChild } from '../src/cli/spawn-conformance.js';
import { checkRunCount } from '../src/results.js';
import { searchTotals } from '../src/reports/property-text.js';
import { PACKAGE_ROOT } from '../src/kit/package-root.js';

const FIGURES = join(PACKAGE_ROOT, 'scripts', 'figures', 'conformance.json');
const TARGET_S = 10;
/** A median wall time this much above the committed one is a regression. */
const TOLERANCE = 0.2;

const USAGE = `Usage: npm run bench:conformance -- [--runs <n>] [--update]

Times the full default conformance run (every suite, embedded reference server) end to end, as a user runs
it (a fresh process each time): wall time, checks run, property runs per second. Compares the median with
the target (${TARGET_S} s wall) and with the last committed figures (scripts/figures/conformance.json):
a median wall time more than ${TOLERANCE * 100} % above them, or fewer checks, is a regression.
  --runs <n>   timed runs (default 3)
  --update     write this run's medians to scripts/figures/conformance.json (commit it with the change)

${exitStatus('target met and no regression', 'target missed or a regression', 'a timed run that does not pass (its timing means nothing)')}`;

interface Figures { date: string; machine: string; wallS: number; checks: number; propertyRunsPerS: number }


const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const change = (now: number, then: number) => `${now >= then ? '+' : ''}${(((now - then) / then) * 100).toFixed(0)} %`;

await main({ usage: USAGE }, async () => {
  const { values } = parseCommandLine(USAGE, { runs: { type: 'string' }, update: { type: 'boolean' } });
  const runs = numberOption('--runs', values.runs, { integer: true, min: 1, max: 10, fallback: 3 });
  const machine = `${cpus().length} cores, ${cpus()[0]?.model.trim()}, node ${process.version}`;
  console.log(`machine   ${machine}`);
  const walls: number[] = [];
  const checks: number[] = [];
  const rates: number[] = [];
  for (let i = 1; i <= runs; i++) {
    const run = await runConformanceChild(['--seed', String(i), '--quiet'], 300_000);
    if (run.code !== 0 || !run.results) {
      console.log(run.stderr.slice(-2000));
      throw new Error(`run ${i} exited ${run.code}: it did not pass against the reference server, so the timing is not meaningful`);
    }
    const r = run.results;
    walls.push(run.durationMs / 1000);
    checks.push(checkRunCount(r));
    rates.push(searchTotals(r).runsPerS);
    console.log(`run ${i}/${runs}  ${(run.durationMs / 1000).toFixed(2)} s wall (in the run ${(r.durationMs / 1000).toFixed(2)} s), ${checks.at(-1)} checks, ` +
      `${Math.round(rates.at(-1)!)} property runs/s, ${r.totals.pass} pass, ${r.totals.notTestable} not testable`);
  }
  const now: Figures = { date: new Date().toISOString().slice(0, 10), machine, wallS: +median(walls).toFixed(2), checks: median(checks), propertyRunsPerS: Math.round(median(rates)) };
  let then: Figures | undefined;
  try {
    then = JSON.parse(readFileSync(FIGURES, 'utf8')) as Figures;
  } catch {
    then = undefined;
  }
  console.log(`median    ${now.wallS.toFixed(2)} s wall (min ${Math.min(...walls).toFixed(2)}, max ${Math.max(...walls).toFixed(2)}), ${now.checks} checks, ${now.propertyRunsPerS} property runs/s`);
  const targetMet = now.wallS <= TARGET_S;
  console.log(`target    ${TARGET_S} s wall: ${targetMet ? 'met' : 'NOT MET'}`);
  let regressed = false;
  if (then) {
    regressed = now.wallS > then.wallS * (1 + TOLERANCE) || now.checks < then.checks;
    console.log(`committed ${then.wallS.toFixed(2)} s wall, ${then.checks} checks, ${then.propertyRunsPerS} property runs/s (${then.date}, ${then.machine})`);
    console.log(`change    wall ${change(now.wallS, then.wallS)}${regressed ? ' REGRESSION' : ''}, checks ${now.checks - then.checks >= 0 ? '+' : ''}${now.checks - then.checks}${now.checks < then.checks ? ' FEWER CHECKS' : ''}, property runs/s ${change(now.propertyRunsPerS, then.propertyRunsPerS)}`);
  } else {
    console.log('committed none yet (--update writes them)');
  }
  if (values.update) {
    writeFileSync(FIGURES, `${JSON.stringify(now, null, 2)}\n`);
    console.log(`written   ${FIGURES}`);
  }
  return targetMet && !regressed ? 0 : 1;
});
