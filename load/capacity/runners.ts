/**
 * Which generator runs the capacity search's steps (`--driver`): the undici open-model driver in this process
 * (run-capacity.ts builds it when no runner is given), or k6, one run of load/k6/capacity-step.ts per step,
 * judged the same way. Here the k6 runners are made for a prepared target: the search's own and the
 * calibration's (so the ceiling calibrated is that of the generator that runs the steps).
 */
import { findK6, k6Line } from '../k6-binary.js';
import { scenarioByName } from '../scenarios.js';
import { K6StepDriver } from './k6-driver.js';
import type { CapacityRunOptions, CapacityTarget } from './run-capacity.js';

export const DRIVERS = ['undici', 'k6'] as const;
export type DriverName = (typeof DRIVERS)[number];

export interface RunnerChoice {
  driver: DriverName;
  timeoutS: number;
  /** The undici driver's connections; k6's most VUs per step. */
  connections: number;
}

/** What runCapacity takes for the chosen driver: nothing for undici (its default), the k6 runners otherwise. */
export function makeRunners(choice: RunnerChoice, target: CapacityTarget, log: (line: string) => void = () => undefined): Pick<CapacityRunOptions, 'runner' | 'calibrationRunner' | 'driverName'> {
  if (choice.driver === 'undici') return { driverName: 'undici' };
  // Which k6 runs, said before it does (issue 36): found on PATH, the pinned build, or built now and in how long.
  const found = findK6();
  log(k6Line(found, 'capacity'));
  const k6 = found.path;
  const common = { k6, timeoutMs: choice.timeoutS * 1000, maxVus: choice.connections };
  return {
    driverName: 'k6',
    runner: (scenario) => new K6StepDriver({
      ...common, baseUrl: target.baseUrl, apiKey: target.apiKey, scenario,
      ...(target.serverStats && { serverStats: target.serverStats }),
    }),
    // The calibration's no-op endpoint answers tools/list's shape to every POST.
    calibrationRunner: (baseUrl) => new K6StepDriver({ ...common, baseUrl, apiKey: 'calibration', scenario: scenarioByName('tools-list')! }),
  };
}
