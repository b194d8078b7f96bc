import type { Revision } from '../catalog/types.js';
import type { Exchange } from '../wire/exchange.js';

/**
 * `error`: the harness itself broke while checking (a TypeError in a suite, a deadline of its own making):
 * the run's error, never a verdict on the service.
 */
export type CheckStatus = 'pass' | 'fail' | 'not-testable' | 'error';
/**
 * `not-applicable`: every check found the rule not concerning the target (sessions a stateless server does not
 * keep, a revision it does not speak): a status of its own, so that counting statuses matches the totals.
 */
export type RequirementStatus = 'pass' | 'fail' | 'warn' | 'not-testable' | 'not-applicable' | 'untested' | 'error';

/** What one check found: it starts as a failure and is earned. */
export interface CheckRecord {
  name: string;
  /** Suite file and describe path, for grouping and replay. */
  suite: string;
  requirementIds: string[];
  /**
   * The protocol revision the check's requests spoke. A revision-dependent row (catalog `revisions`) runs
   * once per revision the target speaks, each record with its own; other checks carry the run's primary one.
   */
  revision?: Revision;
  status: CheckStatus;
  expected?: unknown;
  actual?: unknown;
  message?: string;
  /** Why a requirement could not be exercised on this target. */
  reason?: string;
  /** Not testable because the rule does not concern this target (see NotTestable): --strict spares it. */
  notApplicable?: boolean;
  /** Not judged because the target stopped answering mid-run (TargetLost): the run has no verdict. */
  targetLost?: boolean;
  /** Facts worth reporting that decide nothing (the description says "not shown"). */
  observations: string[];
  wire: Exchange[];
  /** Exchanges of a check that neither failed nor broke left out of `wire` (src/wire/wire-sample.ts). */
  wireLeftOut?: number;
  /** The whole wire log is the verdict's evidence (a probe that found nothing to judge): kept whatever the status. */
  keepWire?: boolean;
  durationMs: number;
  /** When the check started (ISO): with durationMs, the wall time of checks that ran side by side. */
  startedAt?: string;
  /** Command line that runs this check alone against the same target. */
  replay?: string;
  /** Property checks: the search (seed, runs, time) and, on failure, the shrunk counterexample and its path. */
  property?: PropertyRecord;
  /** Interop matrix checks: the SDK client judged, over which transport, and the revision it negotiated. */
  interop?: InteropTag;
}

export interface InteropTag {
  client: string;
  sdk: string;
  mode: 'http' | 'stdio';
  /** The revision the client negotiated (absent when it never connected). */
  revision?: string;
}

/**
 * Thrown inside a check to end it as not testable, with the reason. `notApplicable`: the rule does not
 * concern this target at all (a stdio rule on an HTTP target, session rules on a stateless server, a
 * revision it does not speak), as opposed to a rule that concerns it but could not be exercised.
 */
export class NotTestable extends Error {
  constructor(readonly reason: string, readonly notApplicable = false) {
    super(reason);
    this.name = 'NotTestable';
  }
}

/** Thrown by `verify` when a condition fails, carrying expected and actual. */
export class CheckFailure extends Error {
  constructor(message: string, readonly expected: unknown, readonly actual: unknown) {
    super(message);
    this.name = 'CheckFailure';
  }
}

/**
 * The service's rate limiting kept a check from judging (a 429 beyond the wait budget or the check's deadline,
 * or 429 again after waiting as told): the check fails with that reason, never passes and is never "not
 * testable" (issue 24: "A throttle is never a pass"). Properties stop their search on it instead of shrinking.
 */
export class Throttled extends CheckFailure {
  constructor(message: string, actual: unknown) {
    super(message, 'a reply other than 429 once the deployment\'s Retry-After was waited out, within the run\'s wait budget and the check\'s deadline', actual);
    this.name = 'Throttled';
  }
}

/**
 * The target stopped accepting connections in the middle of the run: the check that met it is left unjudged
 * (not testable, `targetLost`), never the service's failure, and the run ends without a verdict (exit 2).
 */
export class TargetLost extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TargetLost';
  }
}

const HARNESS_CAUSE = Symbol.for('mcp-harness.harness-cause');

/**
 * Tags an error the harness's own machine caused (a deadline that passed while the harness's event loop was
 * held): the check that met it is not testable with `reason`, never the service's failure nor a harness error.
 */
export function markHarnessCause<E>(err: E, reason: string): E {
  if (err && typeof err === 'object') Object.defineProperty(err, HARNESS_CAUSE, { value: reason });
  return err;
}

/** The reason an error is the harness's machine's doing, when it is tagged so. */
export function harnessCause(err: unknown): string | undefined {
  return err && typeof err === 'object' ? (err as { [HARNESS_CAUSE]?: string })[HARNESS_CAUSE] : undefined;
}

const SERVICE_FAULT = Symbol.for('mcp-harness.service-fault');

/**
 * Tags an error the service caused without a check judging it (the connection refused or reset, no reply
 * within --timeout): it ends the check as the service's failure, not as the harness's error.
 */
export function markServiceFault<E>(err: E): E {
  if (err && typeof err === 'object') Object.defineProperty(err, SERVICE_FAULT, { value: true });
  return err;
}

/**
 * Whether an error thrown out of a check is a verdict on the service: a failed `verify`, an assertion library's AssertionError,
 * a tagged service fault, a reply that does not parse (SyntaxError), or an error carrying expected/actual.
 * Anything else (a TypeError, a ReferenceError, a bare Error of the harness's plumbing) is the harness's own
 * error. A failed property is judged by the error of its failing run.
 */
export function isVerdict(err: unknown): boolean {
  if (err instanceof CheckFailure || err instanceof NotTestable) return true;
  if (!err || typeof err !== 'object') return false;
  const e = err as { name?: string; cause?: unknown; expected?: unknown; actual?: unknown; [SERVICE_FAULT]?: boolean };
  if (e[SERVICE_FAULT]) return true;
  if (e.name === 'PropertyFailure') return e.cause === undefined || isVerdict(e.cause);
  if (e.name === 'AssertionError' || err instanceof SyntaxError) return true;
  return e.expected !== undefined || e.actual !== undefined;
}

/** What a fast-check property did, as recorded on its check (src/engine/property.ts runs it). */
export interface PropertyRecord {
  id: string;
  seed: number;
  /** Runs asked for, and runs done (fewer when the time box ended the search). */
  runsRequested: number;
  runs: number;
  interrupted: boolean;
  timeMs: number;
  /** On failure: the shrunk counterexample, fast-check's path to it, and how many shrinks it took. */
  counterexample?: string;
  path?: string;
  shrinks?: number;
  /** A replayed run (--replay): the path it replayed. */
  replayed?: string;
}
