import type { Agent } from 'undici';
import { Pacer } from '../budget/pacer.js';
import { RunLedger, type LedgerLimits, type SearchProgress } from '../budget/run-ledger.js';
import { Tally } from '../budget/tally.js';
import { newRunPool } from '../wire/connections.js';
import { KeyLedger } from '../wire/key-sightings.js';
import { RequestIds } from '../wire/request-ids.js';
import { ServerErrorLedger } from '../wire/server-errors.js';
import { TargetLiveness } from '../wire/target-liveness.js';
import { DEFAULT_SETTINGS, type RunSettings } from './run-settings.js';

/**
 * Everything one conformance run keeps while it runs, in one object the run makes and hands down: to each
 * check (`c.run`), to each wire client (`new WireClient(..., { run })`), to the target's preparation, the
 * interop matrix and the report door. Runs side by side in one process (the project's tests run them so)
 * share nothing. Code outside a run (a load command's bootstrap, a unit test) makes its own.
 *
 * The one per-run value not held here: the redactor's aliases and spelling caches (src/kit/scrub.ts,
 * src/kit/key-spellings.ts), which every redaction in the product reaches, service and load commands included,
 * through the run's async scope (src/kit/run-scope.ts).
 */
export class RunState {
  /** What the run consumed of the deployment (requests, bootstraps, workspaces, blocks, 429s, waiting). */
  readonly tally = new Tally();
  /** The client-side rate buckets every request of the run waits on. */
  readonly pacer: Pacer;
  /** The run's one space of request ids. */
  readonly ids = new RequestIds();
  /** The keys the run holds and the replies that carried one (`auth-key-never-echoed`, the report door). */
  readonly keys = new KeyLedger();
  /** Whether the target went away mid-run. */
  readonly liveness = new TargetLiveness();
  /** Every malformed or unexpected message of the run and the 5xx among their replies (`jsonrpc-no-5xx`). */
  readonly serverErrors = new ServerErrorLedger();
  /** The run's connections, closed with it. */
  readonly pool: Agent = newRunPool();
  private currentLedger: RunLedger;
  private readonly memo = new Map<string, unknown>();

  /**
   * The run's settings (seed, request deadline, property budget, revision asked for, interop clients); the
   * property budget's time box is set once the run has counted its searches, before any check starts.
   */
  settings: RunSettings;

  constructor(settings: RunSettings = DEFAULT_SETTINGS) {
    this.settings = settings;
    // Unbounded until the run opens its ledger with its budgets (openLedger).
    this.currentLedger = new RunLedger({ waitMs: Number.POSITIVE_INFINITY });
    this.pacer = new Pacer(() => this.currentLedger, this.tally);
  }

  /** What the run may spend (bootstraps by purpose, waiting on 429s), and what it shares between checks. */
  get ledger(): RunLedger {
    return this.currentLedger;
  }

  /** Sets the run's budgets once the target is prepared (its preparation's bootstraps deducted); unbounded until then. */
  openLedger(limits: LedgerLimits, onSearch?: (progress: SearchProgress) => void): RunLedger {
    this.currentLedger = new RunLedger(limits, onSearch);
    return this.currentLedger;
  }

  /**
   * What the checks of a run share, made once by the first check that asks (the bootstrap suite's one
   * bootstrap, the streaming suite's round of streams): never across runs.
   */
  once<T>(key: string, make: () => T): T {
    if (!this.memo.has(key)) this.memo.set(key, make());
    return this.memo.get(key) as T;
  }

  /** Closes the run's connections: open streams are cut, idle connections closed. */
  async close(): Promise<void> {
    await this.pool.destroy().catch(() => {});
  }
}
