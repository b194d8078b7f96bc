/**
 * One capacity run, in process: calibrate the generator, then search each scenario in its share of the time
 * budget, then the overload, recovery and soak phases from the rate found, and assemble capacity.json's report.
 * The command (src/cli/capacity.ts) prepares the target and writes the files; the tests call this directly.
 */
import { performance } from 'node:perf_hooks';
import type { CapacityReport, ScenarioCapacity, StepRecord } from './capacity-result.js';
import { calibrateGenerator, type Calibration, type CalibrationRunner } from './calibration.js';
import { OpenModelDriver, type Arrivals } from './open-model-driver.js';
import { searchCapacity, type StepRunner } from './search.js';
import { defaultGeneratorBounds, type GeneratorBounds } from './step-judge.js';
import { overloadAndRecovery, soak } from './after-search.js';
import type { Slo } from './slo.js';
import { weightedCycle, type Scenario } from '../scenarios.js';
import { packageInfo } from '../../src/kit/package-root.js';
import { soundAnswer } from './report/capacity-word.js';

export interface CapacityTarget {
  kind: string;
  baseUrl: string;
  mcpUrl: string;
  apiKey: string;
  description: string;
  serverStats?: () => Promise<{ cpuMicros?: number; rssBytes?: number }>;
}

export interface CapacityRunOptions {
  target: CapacityTarget;
  scenarios: Scenario[];
  slos: Map<string, Slo>;
  maxRate: number;
  startRate: number;
  tolerance: number;
  arrivals: Arrivals;
  seed: number;
  warmupS: number;
  windowS: number;
  maxWindowS: number;
  timeoutS: number;
  connections: number;
  calibrate: boolean;
  expectRate?: number;
  overload: boolean;
  soakS?: number;
  soakFraction: number;
  maxTimeS: number;
  /** A line per step and phase as the search goes. */
  log?: (line: string) => void;
  /** The tests' generator slowed on purpose (work before every send), or bounds of their own. */
  beforeSend?: () => void;
  bounds?: Partial<GeneratorBounds>;
  /** Times an invalid step runs again before the generator is the bound (default 2). */
  invalidRetries?: number;
  /** Another step runner (the k6 driver) instead of the undici driver; made per scenario. */
  runner?: (scenario: Scenario) => StepRunner & { close(): Promise<void> };
  /** The same runner against the calibration's no-op endpoint: the ceiling calibrated is the generator's that runs the steps. */
  calibrationRunner?: CalibrationRunner;
  driverName?: 'undici' | 'k6';
}

const r1 = (v: number) => Math.round(v * 10) / 10;

export async function runCapacity(o: CapacityRunOptions): Promise<CapacityReport> {
  const started = new Date();
  const t0 = performance.now();
  const log = o.log ?? (() => undefined);
  const findings: string[] = [];
  let spentRequests = 0;

  const firstSlo = o.slos.get(o.scenarios[0]!.name)!;
  const bounds = { ...defaultGeneratorBounds(firstSlo), ...o.bounds };
  let calibration: Calibration | undefined;
  if (o.calibrate) {
    log(`calibrate: the generator's ceiling on this machine, against a no-op endpoint (up to ${o.maxRate} req/s)`);
    calibration = await calibrateGenerator(o.maxRate, bounds, o.connections, o.beforeSend, o.calibrationRunner);
    log(`calibrate: ${calibration.note}`);
  }

  const results: ScenarioCapacity[] = [];
  for (const [i, scenario] of o.scenarios.entries()) {
    const slo = o.slos.get(scenario.name)!;
    const scenarioBounds = { ...defaultGeneratorBounds(slo), ...o.bounds };
    const sStart = performance.now();
    // Each scenario gets an equal share of what is left of the budget.
    const remaining = t0 + o.maxTimeS * 1000 - sStart;
    const deadline = sStart + remaining / (o.scenarios.length - i);
    const runner = o.runner?.(scenario) ?? new OpenModelDriver({
      mcpUrl: o.target.mcpUrl, apiKey: o.target.apiKey, requests: weightedCycle(scenario), connections: o.connections, timeoutMs: o.timeoutS * 1000,
      ...(o.target.serverStats && { serverStats: o.target.serverStats }),
      ...(o.beforeSend && { beforeSend: o.beforeSend }),
    });
    log(`${scenario.name}: searching with SLO ${slo.text}, from ${o.startRate} req/s up to ${o.maxRate} req/s`);
    try {
      const found = await searchCapacity({
        scenario, slo, runner, arrivals: o.arrivals, seed: o.seed, startRate: o.startRate, maxRate: o.maxRate, tolerance: o.tolerance,
        warmupMs: o.warmupS * 1000, windowMs: o.windowS * 1000, maxWindowMs: o.maxWindowS * 1000, deadline, bounds: scenarioBounds,
        ...(calibration?.ceiling != null && !calibration.reachedCap && { generatorCeiling: calibration.ceiling }),
        onStep: (s) => log(stepLine(scenario.name, s)),
        ...(o.invalidRetries !== undefined && { invalidRetries: o.invalidRetries }),
      });
      const { baselineServiceP50Ms, ...result } = found;
      const entry: ScenarioCapacity = { ...result, requests: 0, durationS: 0 };
      // Past the sustained rate only where the SLO set it: beyond a cap or the generator's ceiling, 1.5x is not an overload.
      if (found.sustained !== null && found.sustained > 0 && o.overload && baselineServiceP50Ms !== undefined && found.bound === 'slo') {
        log(`${scenario.name}: overload at 1.5x (${r1(found.sustained * 1.5)} req/s), then recovery at 0.5x`);
        entry.overload = await overloadAndRecovery(runner, found.sustained, baselineServiceP50Ms, o.arrivals, o.seed, Math.max(o.windowS, 2) * 1000);
        log(`${scenario.name}: ${entry.overload.over.summary}; ${entry.overload.recovery.summary}`);
      }
      if (o.soakS !== undefined && found.sustained !== null && found.sustained > 0) {
        log(`${scenario.name}: soak for ${o.soakS} s at ${Math.round(o.soakFraction * 100)} % of ${found.sustained} req/s`);
        entry.soak = await soak(runner, found.sustained, o.soakFraction, o.soakS, o.arrivals, o.seed);
        log(`${scenario.name}: ${entry.soak.drift.summary}`);
      }
      entry.requests = runner.sentTotal;
      entry.durationS = r1((performance.now() - sStart) / 1000);
      spentRequests += runner.sentTotal;
      results.push(entry);
      log(`${scenario.name}: ${entry.summary}`);
    } finally {
      await runner.close();
    }
  }

  let exitCode: 0 | 1 | 2 = 0;
  let noAnswer: string | undefined;
  const unanswered = results.filter((r) => !soundAnswer(r.bound, r.sustained));
  if (unanswered.length > 0) {
    exitCode = 2;
    noAnswer = unanswered.map((r) => `${r.scenario}: ${r.summary}`).join('; ');
  } else if (o.expectRate !== undefined) {
    const below = results.filter((r) => r.sustained === null || r.sustained < o.expectRate!);
    if (below.length > 0) {
      exitCode = 1;
      findings.push(...below.map((r) => `${r.scenario}: sustained ${r.sustained ?? 'nothing'} req/s, below --expect-rate ${o.expectRate} req/s`));
    }
  }
  for (const r of results) {
    if (r.bound === 'generator') findings.push(`${r.scenario}: the number is the generator's limit on this machine, not the service's: run the search from a bigger machine, or with the k6 driver on several`);
    if (r.bound === 'rate-limit') findings.push(`${r.scenario}: ${r.rateLimit?.hint ?? 'a rate limit bound the search'}`);
    if (r.overload && !r.overload.over.holds) findings.push(`${r.scenario}: goodput collapses past the sustained rate (${r.overload.over.summary})`);
    if (r.soak?.drift.flagged) findings.push(`${r.scenario}: ${r.soak.drift.summary}`);
  }
  return {
    schemaVersion: 1,
    tool: { name: 'capacity', version: packageInfo().version },
    target: { kind: o.target.kind, baseUrl: o.target.baseUrl, description: o.target.description },
    startedAt: started.toISOString(),
    durationS: r1((performance.now() - t0) / 1000),
    driver: o.driverName ?? 'undici',
    arrivals: o.arrivals,
    calibration: { generatorCeiling: calibration?.ceiling ?? null, note: calibration?.note ?? 'not calibrated (--no-calibrate): a generator limit is found only by its steps\' send lag and event loop', ...(calibration && { requests: calibration.requests }) },
    options: {
      maxRate: o.maxRate, startRate: o.startRate, tolerancePct: o.tolerance * 100, warmupS: o.warmupS, windowS: o.windowS, maxWindowS: o.maxWindowS, timeoutS: o.timeoutS,
      maxTimeS: o.maxTimeS, connections: o.connections, ...(o.expectRate !== undefined && { expectRate: o.expectRate }),
    },
    spent: { requests: spentRequests, durationS: r1((performance.now() - t0) / 1000) },
    scenarios: results,
    exitCode,
    ...(noAnswer !== undefined && { noAnswer }),
    findings,
  };
}

export function stepLine(scenario: string, s: StepRecord): string {
  const l = s.latencyMs.planned;
  const stream = s.ttfrMs ? `, ttfp p99 ${r1(s.ttfpMs!.p99)} ttfr p99 ${r1(s.ttfrMs.p99)} ms` : '';
  return `${scenario}: step ${s.index} ${s.phase} ${r1(s.offered)} req/s -> ${s.verdict.toUpperCase()} (achieved ${r1(s.achieved)}, goodput ${r1(s.goodput)}, p50 ${r1(l.p50)} p99 ${r1(l.p99)} ms${stream}, ${l.count} samples in ${s.windowS} s; ${s.reason})`;
}
