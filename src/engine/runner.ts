import { planCheck, runCheck, type CheckDefinition, type PlannedCheck } from './check.js';
import type { RunState } from './run-state.js';
import type { RunSettings } from './run-settings.js';
import type { TargetInfo } from '../targets/target-info.js';
import type { CheckRecord } from './verdict.js';
import { eachLimited } from '../kit/each-limited.js';

/** What a run tells its progress printer (src/engine/progress.ts) as it goes. */
export interface RunnerEvents {
  /** Every check run the plan holds, before the first starts. */
  planned?(total: number): void;
  groupStart?(group: string): void;
  checkStart?(planned: PlannedCheck): void;
  checkEnd?(planned: PlannedCheck, record: CheckRecord): void;
  groupEnd?(group: string, records: readonly CheckRecord[], ms: number): void;
}

export interface RunnerOptions {
  /** Groups (suite files) run side by side. */
  groups: number;
  /** Checks of a `describe.concurrent` block run side by side, at most this many at once. */
  concurrency: number;
  events?: RunnerEvents;
}

/** The runs of the checks `only` selects against the target, by group (suite file), in load order. */
export function planChecks(definitions: readonly CheckDefinition[], target: TargetInfo, settings: RunSettings, only: readonly string[]): Map<string, PlannedCheck[]> {
  const groups = new Map<string, PlannedCheck[]>();
  for (const def of definitions) {
    const planned = planCheck(def, target, settings, only);
    if (planned.length > 0) groups.set(def.group, [...(groups.get(def.group) ?? []), ...planned]);
  }
  return groups;
}

/** A planned check that runs a property search (it declares one). */
export const searches = (p: PlannedCheck): boolean => p.def.options.property !== undefined;

/** The property searches a plan makes (a check declaring one, once per run of it): the run splits its search budget among them. */
export function searchesIn(plan: ReadonlyMap<string, PlannedCheck[]>): number {
  return [...plan.values()].flat().filter(searches).length;
}

/**
 * The order of the groups when several run side by side (a server the harness started): the scenario groups
 * first, then those that search (a check declaring a property), each part in load order. A search is
 * time-boxed and takes what the event loop has left: beside the scenario checks it made a third of the runs
 * it makes after them, in about the same wall time. One group at a time (a deployment) runs in load order:
 * the order gains nothing there, and the run's pacing was tuned to it.
 */
export function runOrder(groups: ReadonlyMap<string, PlannedCheck[]>, atOnce: number): [string, PlannedCheck[]][] {
  const all = [...groups];
  if (atOnce <= 1) return all;
  const searching = ([, planned]: [string, PlannedCheck[]]) => planned.some(searches);
  return [...all.filter((g) => !searching(g)), ...all.filter(searching)];
}

/**
 * Runs the planned checks against the target, in this process: the groups (suite files) in `runOrder`,
 * `options.groups` of them at a time; inside a group its blocks one after another, the checks of a concurrent
 * block side by side (at most `options.concurrency`), the others one at a time. Returns every record.
 */
export async function runPlanned(groups: ReadonlyMap<string, PlannedCheck[]>, target: TargetInfo, run: RunState, options: RunnerOptions): Promise<CheckRecord[]> {
  options.events?.planned?.([...groups.values()].reduce((n, g) => n + g.length, 0));
  const records: CheckRecord[] = [];
  await eachLimited(runOrder(groups, options.groups), options.groups, async ([group, planned]) => {
    const started = performance.now();
    options.events?.groupStart?.(group);
    const own: CheckRecord[] = [];
    for (const block of blocks(planned)) {
      await eachLimited(block, block[0]!.def.concurrent ? options.concurrency : 1, async (p) => {
        options.events?.checkStart?.(p);
        const record = await runCheck(p, target, run);
        own.push(record);
        options.events?.checkEnd?.(p, record);
      });
    }
    records.push(...own);
    options.events?.groupEnd?.(group, own, performance.now() - started);
  });
  return records;
}

/** Consecutive checks of one describe block. */
function blocks(planned: PlannedCheck[]): PlannedCheck[][] {
  const out: PlannedCheck[][] = [];
  for (const p of planned) {
    const last = out.at(-1);
    if (last && last[0]!.def.suite === p.def.suite) last.push(p);
    else out.push([p]);
  }
  return out;
}
