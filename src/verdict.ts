import type { Revision } from './catalog/types.js';
import type { PropertyRecord } from './property.js';
import type { Exchange } from './wire/exchange.js';

export type CheckStatus = 'pass' | 'fail' | 'not-testable';
export type RequirementStatus = 'pass' | 'fail' | 'warn' | 'not-testable' | 'untested';

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
  /** Facts worth reporting that decide nothing (the description says "not shown"). */
  observations: string[];
  wire: Exchange[];
  durationMs: number;
  /** Command line that runs this check alone against the same target. */
  replay?: string;
  /** Property checks: the search (seed, runs, time) and, on failure, the shrunk counterexample and its path. */
  property?: PropertyRecord;
}

/** Thrown inside a check to end it as not testable, with the reason. */
export class NotTestable extends Error {
  constructor(readonly reason: string) {
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
