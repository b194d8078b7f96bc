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
/** The targets: the default run within TARGET_S with at least TARGET_RUNS property runs; a narrow run within NARROW_TARGET_S. */
const TARGET_S = 5;
const TARGET_RUNS = 2400;
const NARROW = ['--only', 'discovery-llms-txt-h1'];
const NARROW_TARGET_S = 1;
/** A median wall time this much above the committed one is a regression. */
const TOLERANCE = 0.2;

const USAGE = `Usage: npm run bench:conformance -- [--runs <n>] [--update]

Times the full default conformance run (every suite, embedded reference server) end to end, as a user runs
it (a fresh process each time): wall time, checks run, property runs; then a narrow run (${NARROW.join(' ')}).
Compares the medians with the targets (the default run within ${TARGET_S} s wall with at least ${TARGET_RUNS}
property runs, the narrow run within ${NARROW_TARGET_S} s) and with the last committed figures
(scripts/figures/conformance.json): a median wall time more than ${TOLERANCE * 100} % above them, or fewer checks,
is a regression.
  --runs <n>   timed runs (default 3)
  --update     write this run's medians to scripts/figures/conformance.json (commit it with the change)

${exitStatus('target met and no regression', 'target missed or a regression', 'a timed run that does not pass (its timing means nothing)')}`;

interface Figures { date: string; machine: string; wallS: number; checks: number; propertyRuns?: number; propertyRunsPerS: number; narrowWallS?: number }


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
  const propertyRuns: number[] = [];
  const narrowWalls: number[] = [];
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
    propertyRuns.push(searchTotals(r).runs);
    console.log(`run ${i}/${runs}  ${(run.durationMs / 1000).toFixed(2)} s wall (in the run ${(r.durationMs / 1000).toFixed(2)} s), ${checks.at(-1)} checks, ` +
      `${propertyRuns.at(-1)} property runs (${Math.round(rates.at(-1)!)}/s), ${r.totals.pass} pass, ${r.totals.notTestable} not testable`);
    // The narrow run right after, so that both see the machine alike.
    const narrow = await runConformanceChild([...NARROW, '--seed', String(i), '--quiet'], 60_000);
    if (narrow.code !== 0) throw new Error(`the narrow run ${i} exited ${narrow.code}: ${narrow.stderr.slice(-500)}`);
    narrowWalls.push(narrow.durationMs / 1000);
    console.log(`          narrow run (${NARROW.join(' ')}) ${(narrow.durationMs / 1000).toFixed(2)} s wall`);
  }
  const now: Figures = {
    date: new Date().toISOString().slice(0, 10), machine, wallS: +median(walls).toFixed(2), checks: median(checks),
    propertyRuns: median(propertyRuns), propertyRunsPerS: Math.round(median(rates)), narrowWallS: +median(narrowWalls).toFixed(2),
  };
  let then: Figures | undefined;
  try {
    then = JSON.parse(readFileSync(FIGURES, 'utf8')) as Figures;
  } catch {
    then = undefined;
  }
  console.log(`median    ${now.wallS.toFixed(2)} s wall (min ${Math.min(...walls).toFixed(2)}, max ${Math.max(...walls).toFixed(2)}), ${now.checks} checks, ${now.propertyRuns} property runs (${now.propertyRunsPerS}/s); narrow run ${now.narrowWallS!.toFixed(2)} s wall (min ${Math.min(...narrowWalls).toFixed(2)}, max ${Math.max(...narrowWalls).toFixed(2)})`);
  const defaultMet = now.wallS <= TARGET_S && now.propertyRuns! >= TARGET_RUNS;
  const narrowMet = now.narrowWallS! < NARROW_TARGET_S;
  console.log(`target    default run ${TARGET_S} s wall with ${TARGET_RUNS} property runs or more: ${defaultMet ? 'met' : 'NOT MET'}; narrow run under ${NARROW_TARGET_S} s: ${narrowMet ? 'met' : 'NOT MET'}`);
  const targetMet = defaultMet && narrowMet;
  let regressed = false;
  if (then) {
    regressed = now.wallS > then.wallS * (1 + TOLERANCE) || now.checks < then.checks;
    console.log(`committed ${then.wallS.toFixed(2)} s wall, ${then.checks} checks, ${then.propertyRuns ?? '?'} property runs (${then.propertyRunsPerS}/s)${then.narrowWallS !== undefined ? `, narrow run ${then.narrowWallS.toFixed(2)} s` : ''} (${then.date}, ${then.machine})`);
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
