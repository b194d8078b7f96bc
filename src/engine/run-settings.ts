import type { Revision } from '../catalog/types.js';
import type { ClientId } from '../interop/clients.js';
import { QUICK_BUDGET, type PropertyBudget } from './property.js';

/**
 * How the run sends and searches, as its command line set it: settings of the run, not facts about the
 * target (those are TargetInfo's). Held by the run's state (`c.run.settings`).
 */
export interface RunSettings {
  /** The seed of generated inputs and ordering. */
  seed: number;
  /** Per-request deadline. */
  timeoutMs: number;
  /** How hard property checks search (quick CI mode or deep), and a counterexample to replay. */
  property: PropertyBudget;
  /** `auto`, or the revision to test (`--protocol`); what the target speaks is `TargetInfo.revisions`. */
  protocol: 'auto' | Revision;
  /** The SDK clients of the interop matrix to run (`--clients`); absent: all of them. */
  interopClients?: ClientId[];
}

/** The settings of code outside a conformance run (a load command's bootstrap, a unit test). */
export const DEFAULT_SETTINGS: RunSettings = { seed: 1, timeoutMs: 10_000, property: QUICK_BUDGET, protocol: 'auto' };
