import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine } from '../src/kit/command-line.js';
import { exitStatus, main } from '../src/kit/main.js';
import { numberOption } from '../src/kit/options.js';
import { runConformanceChild } from './conformance-runs.js';
import { checkRunCount } from '../src/engine/results.js';
import { searchTotals } from '../src/reports/property-text.js';
import { PACKAGE_ROOT } from '../src/kit/package-root.js';
import { calibrationSeconds } from './bench/cpu-calibration.js';

const FIGURES = join(PACKAGE_ROOT, 'scripts', 'figures', 'conformance.json');
/** The targets: the default run within TARGET_S with at least TARGET_RUNS property runs; a narrow run within NARROW_TARGET_S. */
const TARGET_S = 5;
const TARGET_RUNS = 2400;
const NARROW = ['--only', 'discovery-llms-txt-h1'];
const NARROW_TARGET_S = 1;
/** A median wall time per calibration this much above the committed one is a regression. */
const TOLERANCE = 0.2;

const USAGE = `Usage: npm run bench:conformance -- [--runs <n>] [--update]

Times the full default conformance run (every suite, embedded reference server) end to end, as a user runs
it (a fresh process each time): wall time, checks run, property runs; then a narrow run (${NARROW.join(' ')}).
Before and after each timed run it times a fixed piece of CPU work in a fresh process (the calibration), so
that every comparison is of ratios measured in the same run, never of seconds from another machine: a wall time
per calibration more than ${TOLERANCE * 100} % above the committed one (scripts/figures/conformance.json), or
fewer checks, is a regression. The targets (the default run within ${TARGET_S} s wall with at least
${TARGET_RUNS} property runs, the narrow run within ${NARROW_TARGET_S} s, on the machine of 2026-11-27 they were
set on) are scaled to this machine: by how much slower the committed figures' machine is (targetMachineSlowdown
in the figures, with how it was measured) and by this machine's calibration over the committed one.
  --runs <n>   timed runs (default 3)
  --update     write this run's medians to scripts/figures/conformance.json (commit it with the change)

${exitStatus('target met and no regression', 'target missed or a regression', 'a timed run that does not pass (its timing means nothing)')}`;

interface Figures {
  date: string; machine: string; wallS: number; checks: number; propertyRuns?: number; propertyRunsPerS: number; narrowWallS?: number;
  /** The calibration's median seconds, and each run's wall time over the calibrations around it (medians). */
  calibrationS?: number; wallPerCalibration?: number; narrowPerCalibration?: number;
  /**
   * How many times slower the machine these figures come from is than the one the targets were set on (issue 25,
   * 2026-11-27, no calibration then). Written once by hand, with how it was measured; --update carries it on by the
   * ratio of the calibrations.
   */
  targetMachineSlowdown?: number;
  targetMachineSlowdownHow?: string;
}


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
  const calibrations: number[] = [calibrationSeconds()];
  const wallRatios: number[] = [];
  const narrowRatios: number[] = [];
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
    calibrations.push(calibrationSeconds());
    // The yardstick around this run: the calibration before it and the one after.
    const yardstick = (calibrations.at(-1)! + calibrations.at(-2)!) / 2;
    wallRatios.push(walls.at(-1)! / yardstick);
    narrowRatios.push(narrowWalls.at(-1)! / yardstick);
    console.log(`          narrow run (${NARROW.join(' ')}) ${(narrow.durationMs / 1000).toFixed(2)} s wall; calibration ${yardstick.toFixed(3)} s ` +
      `(run ${wallRatios.at(-1)!.toFixed(2)}x, narrow ${narrowRatios.at(-1)!.toFixed(2)}x)`);
  }
  const now: Figures = {
    date: new Date().toISOString().slice(0, 10), machine, wallS: +median(walls).toFixed(2), checks: median(checks),
    propertyRuns: median(propertyRuns), propertyRunsPerS: Math.round(median(rates)), narrowWallS: +median(narrowWalls).toFixed(2),
    calibrationS: +median(calibrations).toFixed(3), wallPerCalibration: +median(wallRatios).toFixed(2), narrowPerCalibration: +median(narrowRatios).toFixed(2),
  };
  let then: Figures | undefined;
  try {
    then = JSON.parse(readFileSync(FIGURES, 'utf8')) as Figures;
  } catch {
    then = undefined;
  }
  console.log(`median    ${now.wallS.toFixed(2)} s wall (min ${Math.min(...walls).toFixed(2)}, max ${Math.max(...walls).toFixed(2)}), ${now.checks} checks, ${now.propertyRuns} property runs (${now.propertyRunsPerS}/s); narrow run ${now.narrowWallS!.toFixed(2)} s wall (min ${Math.min(...narrowWalls).toFixed(2)}, max ${Math.max(...narrowWalls).toFixed(2)})`);
  console.log(`calibrated run ${now.wallPerCalibration!.toFixed(2)}x the calibration (${now.calibrationS!.toFixed(3)} s, min ${Math.min(...calibrations).toFixed(3)}, max ${Math.max(...calibrations).toFixed(3)}), narrow run ${now.narrowPerCalibration!.toFixed(2)}x`);
  // How much slower (> 1) or faster this machine is, now, than the one the figures were committed from, and than
  // the one the targets were set on: the targets' seconds grow with it, the property runs a time box allows shrink.
  const calibrated = then?.calibrationS !== undefined && then.wallPerCalibration !== undefined && then.narrowPerCalibration !== undefined;
  const sinceCommitted = calibrated ? now.calibrationS! / then!.calibrationS! : 1;
  const factor = sinceCommitted * (calibrated ? then!.targetMachineSlowdown ?? 1 : 1);
  if (calibrated && then!.targetMachineSlowdown !== undefined) {
    now.targetMachineSlowdown = +factor.toFixed(2);
    now.targetMachineSlowdownHow = `${then!.targetMachineSlowdownHow ?? ''}; then x${sinceCommitted.toFixed(2)} by calibration (${then!.date} to ${now.date})`.replace(/^; /, '');
  }
  const runsTarget = Math.round(TARGET_RUNS / factor);
  const defaultMet = now.wallS <= TARGET_S * factor && now.propertyRuns! >= runsTarget;
  const narrowMet = now.narrowWallS! < NARROW_TARGET_S * factor;
  const scaled = calibrated ? ` (the targets' machine scaled to this one, x${factor.toFixed(2)}: ${then!.targetMachineSlowdown ?? 1} for the committed figures' machine, x${sinceCommitted.toFixed(2)} by calibration since)` : ' (no committed calibration: as written)';
  console.log(`target    default run ${(TARGET_S * factor).toFixed(2)} s wall with ${runsTarget} property runs or more: ${defaultMet ? 'met' : 'NOT MET'}; narrow run under ${(NARROW_TARGET_S * factor).toFixed(2)} s: ${narrowMet ? 'met' : 'NOT MET'}${scaled}`);
  const targetMet = defaultMet && narrowMet;
  let regressed = false;
  if (then && calibrated) {
    regressed = now.wallPerCalibration! > then.wallPerCalibration! * (1 + TOLERANCE) || now.checks < then.checks;
    console.log(`committed run ${then.wallPerCalibration!.toFixed(2)}x, narrow ${then.narrowPerCalibration!.toFixed(2)}x the calibration, ${then.checks} checks (${then.wallS.toFixed(2)} s wall, calibration ${then.calibrationS!.toFixed(3)} s; ${then.date}, ${then.machine})`);
    console.log(`change    run per calibration ${change(now.wallPerCalibration!, then.wallPerCalibration!)}${regressed && now.checks >= then.checks ? ' REGRESSION' : ''}, ` +
      `narrow per calibration ${change(now.narrowPerCalibration!, then.narrowPerCalibration!)}, checks ${now.checks - then.checks >= 0 ? '+' : ''}${now.checks - then.checks}${now.checks < then.checks ? ' FEWER CHECKS' : ''}`);
  } else if (then) {
    regressed = now.checks < then.checks;
    console.log(`committed ${then.wallS.toFixed(2)} s wall, ${then.checks} checks (${then.date}, ${then.machine}): no calibration was committed with them, so wall times are not compared (--update writes calibrated figures)`);
  } else {
    console.log('committed none yet (--update writes them)');
  }
  if (values.update) {
    writeFileSync(FIGURES, `${JSON.stringify(now, null, 2)}\n`);
    console.log(`written   ${FIGURES}`);
  }
  return targetMet && !regressed ? 0 : 1;
});
