import fc from 'fast-check';
import { CheckFailure, markServiceFault, NotTestable, TargetLost, Throttled, type PropertyRecord } from './verdict.js';
import type { Exchange } from '../wire/exchange.js';

/** How hard properties search: a quick CI mode is time-boxed, a deep mode asks for many runs. */
export interface PropertyBudget {
  /** Runs per property (upper bound in quick mode, where the time box usually ends a property first). */
  runs: number;
  /** Time box per property's search in ms; 0 = none (deep mode). A run with `budgetMs` sets it from that. */
  timeLimitMs: number;
  /**
   * The run's search time (`--budget`), ms, split evenly among the searches its selection makes (the checks
   * declare them: check options.property): each search's time box is budgetMs / searches.
   */
  budgetMs?: number;
  /** Time box for shrinking a counterexample once one is found. */
  shrinkTimeMs: number;
  /** Replays one counterexample exactly: the property's id and fast-check's path (with the run's seed). */
  replay?: { id: string; path: string };
}

/**
 * The quick (CI) mode: 18 s of searching shared by the run, 1000 runs at most per search; a full run's 20
 * searches get about 0.9 s each (the run stays within 10 s on two cores). timeLimitMs is the time box of a search outside a run (the harness's tests).
 */
export const QUICK_BUDGET: PropertyBudget = { runs: 1000, timeLimitMs: 1500, budgetMs: 18_000, shrinkTimeMs: 10_000 };

/** The shortest time box a search gets, however large the run: a few runs at least, never none. */
export const MIN_TIME_BOX_MS = 100;

/** Each search's time box when `budgetMs` is split among `searches`. */
export function timeBoxOf(budgetMs: number, searches: number): number {
  return Math.max(MIN_TIME_BOX_MS, Math.floor(budgetMs / Math.max(1, searches)));
}

/** A property: an id (replay refers to it), what it generates, and a predicate that throws or returns false. */
export interface PropertySpec<T> {
  id: string;
  arbitrary: fc.Arbitrary<T>;
  predicate: (value: T) => Promise<boolean | void>;
  /** A cap on runs in quick (time-boxed) mode, for expensive properties; deep mode runs the full budget. */
  maxRuns?: number;
  /**
   * A cap on predicate calls in every mode, shrinking and replay included: what a budget outside the harness
   * allows (bootstraps on a deployment). A failure is then reported as found, unshrunk.
   */
  runLimit?: number;
  /** Renders a value for reports without secrets (default fc.stringify). */
  show?: (value: T) => string;
}

/** What a property run leaves in the check's record: enough to judge the search and to replay a failure. */
// The record lives beside the check record it belongs to (src/engine/verdict.ts), so neither module needs the other's.
export type { PropertyRecord } from './verdict.js';

export class PropertyFailure extends Error {
  constructor(message: string, readonly expected: unknown, readonly actual: unknown, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'PropertyFailure';
  }
}

/**
 * Runs one property with the run's seed. The wire log keeps only the last run's exchanges (thousands of
 * runs would bury the evidence); on failure the shrunk counterexample is run once more so the wire log
 * shows exactly it, and the error names the seed and path that replay it.
 */
export async function runProperty<T>(spec: PropertySpec<T>, seed: number, budget: PropertyBudget, wire: Exchange[], runTimeoutMs = 10_000, onRun?: (runs: number) => void): Promise<PropertyRecord> {
  const started = performance.now();
  /** The run in flight: the time box abandons it, and a run that never ends is a hang, not a pass. */
  let inFlight: { value: T; done: Promise<boolean | void>; settled: boolean } | undefined;
  const runsRequested = Math.min(budget.timeLimitMs > 0 ? Math.min(budget.runs, spec.maxRuns ?? Infinity) : budget.runs, spec.runLimit ?? Infinity);
  /**
   * A run that could not be judged (not testable, the target gone) or that the deployment kept from judging
   * (throttled beyond the wait budget): the search stops there, without shrinking on it, and the check ends with it.
   */
  let blocked: NotTestable | Throttled | TargetLost | undefined;
  const show = spec.show ?? ((v: T) => fc.stringify(v));
  let lastError: unknown;
  let runsStarted = 0;
  const property = fc.asyncProperty(spec.arbitrary, async (value) => {
    onRun?.(++runsStarted);
    if (blocked) return true;
    wire.length = 0;
    const run = spec.predicate(value).catch((err: unknown) => {
      if (!(err instanceof NotTestable || err instanceof Throttled || err instanceof TargetLost)) throw err;
      blocked = err;
      return true;
    });
    const current = { value, done: run, settled: false };
    inFlight = current;
    try {
      return await run;
    } catch (err) {
      lastError = err;
      throw err;
    } finally {
      current.settled = true;
    }
  });
  const replayPath = budget.replay?.id === spec.id ? budget.replay.path : undefined;
  const plugins = (ms: number) => (ms > 0 ? [fc.interruptAfterTimeLimit(ms)] : []);
  // Runs allowed by an outside budget (bootstraps on a deployment, paced by its rate limit) all run, and no
  // more: a time box sized for thousands of fast runs would end them while they wait their turn, and
  // shrinking would spend what the budget does not allow.
  const capped = spec.runLimit !== undefined;
  // `timeout`: a run that takes longer than a request's deadline fails (and shrinks) like any other.
  let details = await fc.check(property, {
    seed, numRuns: runsRequested, path: replayPath, timeout: runTimeoutMs, plugins: plugins(capped ? 0 : budget.timeLimitMs), endOnFailure: capped,
  });
  if (blocked) throw blocked;
  const record: PropertyRecord = {
    id: spec.id, seed, runsRequested, runs: details.numRuns, interrupted: details.interrupted, timeMs: 0,
    ...(replayPath !== undefined && { replayed: replayPath }),
  };
  if (details.failed && details.counterexamplePath !== null) {
    // The search's time box may have cut shrinking short: shrink on from the path found, in a box of its own.
    const found = details;
    // A path fast-check cannot walk again (commands that learn what ran) throws: keep what the search found.
    const more = capped ? undefined : await fc.check(property, { seed, numRuns: runsRequested, path: found.counterexamplePath, timeout: runTimeoutMs, plugins: plugins(budget.shrinkTimeMs) })
      .catch(() => undefined);
    if (more?.failed && more.counterexamplePath !== null) details = more;
    const counterexample = (details.counterexample as unknown as [T])[0];
    // The replay can pass on a flaky target: keep the search's error then. A capped property's wire log
    // already holds its failing run, the last it may send.
    let failure = lastError;
    if (!capped) {
      wire.length = 0;
      failure = (await outcome(spec.predicate(counterexample), runTimeoutMs)) ?? lastError;
    }
    Object.assign(record, {
      counterexample: show(counterexample), path: details.counterexamplePath!,
      shrinks: found.numShrinks + (details === found ? 0 : details.numShrinks),
    });
    record.timeMs = Math.round(performance.now() - started);
    throw propertyFailure(`property ${spec.id} failed after ${found.numRuns} run(s), shrunk to ${record.counterexample} (seed ${seed}, path ${record.path})`, failure, record);
  }
  const abandoned = inFlight;
  let finishedInFlight = false;
  if (details.interrupted && abandoned && !abandoned.settled) {
    const failure = await outcome(abandoned.done, runTimeoutMs);
    finishedInFlight = failure === undefined;
    if (failure !== undefined) {
      record.counterexample = show(abandoned.value);
      record.timeMs = Math.round(performance.now() - started);
      throw propertyFailure(`property ${spec.id}: the run in flight when the time box ended failed, on ${record.counterexample} (seed ${seed}; not shrunk, no replay path)`, failure, record);
    }
  }
  record.timeMs = Math.round(performance.now() - started);
  if (replayPath !== undefined && details.numRuns === 0) {
    // A pass that ran nothing proves nothing: the path does not lead to a value of this property and seed.
    throw Object.assign(new PropertyFailure(`property ${spec.id}: --replay path ${replayPath} reaches no value with seed ${seed} (was it printed by a run with this seed and property?)`, 'one replayed run', 'no run'), { property: record });
  }
  if (blocked) throw blocked;
  // A slow target (or a loaded machine) can take longer than the time box for its first run: the run in
  // flight, let finish above, is the search's one run.
  if (details.failed && details.interrupted && details.numRuns === 0 && finishedInFlight) {
    record.runs = 1;
    return record;
  }
  if (details.failed) {
    const why = details.interrupted ? `the time box (${budget.timeLimitMs} ms) ended before a single run` : `${details.numSkips} generated values were skipped`;
    throw Object.assign(new PropertyFailure(`property ${spec.id} could not run: ${why}`, 'at least one run', `${details.numRuns} runs`), { property: record });
  }
  return record;
}

/** How one run ended: undefined for a pass, else its error (a false return, a throw, the deadline). */
function outcome(run: Promise<boolean | void>, ms: number): Promise<unknown> {
  return withDeadline(run, ms).then((ok) => (ok === false ? new CheckFailure('the property returned false', true, false) : undefined), (err: unknown) => err);
}

/** The check's error for a failed run: the run's own message, expected and actual, with the search's record. */
function propertyFailure(context: string, cause: unknown, record: PropertyRecord): PropertyFailure & { property: PropertyRecord } {
  const e = cause as { message?: string; expected?: unknown; actual?: unknown } | undefined;
  return Object.assign(new PropertyFailure(`${context}: ${e?.message ?? String(cause)}`, e?.expected, e?.actual, cause), { property: record });
}

/** The promise, or a rejection once `ms` have passed (a hung run must not hang the check). */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    // A request's deadline: the service did not answer in time, a verdict like any other.
    timer = setTimeout(() => reject(markServiceFault(new Error(`the run did not finish within ${ms} ms`))), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
