/**
 * The generator's own ceiling on this machine, measured before a search: the driver steps up against a no-op
 * endpoint (its own process, answering at once) until it can no longer send as planned. No step of the search
 * is planned above it, and a search that reaches it says "at least": a number beyond it would describe the
 * load generator, not the service (on a 2-core machine the generator and the server share the cores).
 */
import { spawnServerChild } from '../../src/kit/server-child.js';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { MCP_PATH, scenarioByName, weightedCycle } from '../scenarios.js';
import { OpenModelDriver, type StepPlan } from './open-model-driver.js';
import type { StepRunner } from './search.js';
import { generatorProblem, type GeneratorBounds } from './step-judge.js';

export interface Calibration {
  /** The highest rate the generator offered as planned (req/s); null when even the first step failed. */
  ceiling: number | null;
  /** Whether the no-op endpoint, not the generator, stopped the climb (the ceiling is then a lower bound). */
  endpointBound: boolean;
  /** Whether the climb reached `upTo` without a problem. */
  reachedCap: boolean;
  note: string;
  steps: Array<{ rate: number; lagP99Ms: number; eventLoopUtilization: number; problem?: string }>;
  requests: number;
}

const START = 250;
const WARMUP_MS = 300;
const WINDOW_MS = 1000;
const ATTEMPTS = 3;

/** A step runner of the search's own kind (the k6 driver) against the no-op endpoint at `baseUrl`. */
export type CalibrationRunner = (baseUrl: string) => StepRunner & { close(): Promise<void> };

/**
 * Steps ×2 from START up to `upTo` (the search's cap) against a no-op endpoint; `beforeSend` slows the generator
 * on purpose (tests). `runner`: the search's own generator when it is not the undici driver (its ceiling is the one that bounds the steps).
 */
export async function calibrateGenerator(upTo: number, bounds: GeneratorBounds, connections: number, beforeSend?: () => void, runner?: CalibrationRunner): Promise<Calibration> {
  const child = await spawnServerChild({ name: 'no-op endpoint', script: 'load/capacity/no-op-child.ts', cwd: PACKAGE_ROOT });
  const driver = runner?.(child.url) ?? new OpenModelDriver({
    mcpUrl: `${child.url}${MCP_PATH}`, apiKey: 'calibration', requests: weightedCycle(scenarioByName('tools-list')!), connections, timeoutMs: 5000,
    ...(beforeSend && { beforeSend }),
  });
  const steps: Calibration['steps'] = [];
  let ceiling: number | null = null;
  let endpointBound = false;
  try {
    for (let rate = Math.min(START, upTo); ; rate = Math.min(rate * 2, upTo)) {
      // A rate is beyond the generator only when it fails every attempt: one pause (a collection, a new
      // connection's set-up) is not a ceiling.
      let problem: string | undefined;
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const plan: StepPlan = { rate, arrivals: 'constant', seed: 1, warmupMs: WARMUP_MS, windowMs: WINDOW_MS, maxWindows: 1, thresholds: { latency: [], ttfp: [], ttfr: [] } };
        // Only the generator is judged here: its send lag and event loop are known when the window's time is up.
        const m = await driver.runStep(plan, () => 'done');
        problem = generatorProblem(m, bounds, false);
        steps.push({ rate, lagP99Ms: Math.round(m.sendLag.percentile(99) * 100) / 100, eventLoopUtilization: Math.round(m.generator.eventLoopUtilization * 1000) / 1000, ...(problem && { problem }) });
        if (!problem) break;
        // A pool that queued against an endpoint that answers at once: the endpoint (on the same cores) fell behind first.
        endpointBound = m.generator.poolQueuedMax > 0 && m.sendLag.percentile(99) <= bounds.lagBoundMs;
      }
      if (problem) break;
      endpointBound = false;
      ceiling = rate;
      if (rate >= upTo) break;
    }
  } finally {
    await driver.close();
    await child.stop();
  }
  const reachedCap = ceiling !== null && ceiling >= upTo;
  const note = reachedCap
    ? `the generator offered ${upTo} req/s (the cap) as planned against a no-op endpoint`
    : ceiling === null
      ? `the generator could not offer even ${steps[0]?.rate} req/s as planned against a no-op endpoint: ${steps[0]?.problem}`
      : `the generator offers up to ${ceiling} req/s as planned on this machine${endpointBound ? ' (the no-op endpoint fell behind first: a lower bound)' : ''}; above: ${steps.at(-1)?.problem}`;
  return { ceiling, endpointBound, reachedCap, note, steps, requests: driver.sentTotal };
}
