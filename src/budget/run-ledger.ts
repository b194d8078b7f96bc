import { allocate, type Purpose } from './bootstrap-plan.js';

/**
 * What a run may spend of a deployment it does not own, and what it did spend: bootstrap requests by
 * purpose (each may create a workspace and mail a human) and time waiting out 429s. One object per run,
 * kept in the run's state: every check asks it before it spends (src/engine/run-state.ts).
 */
export interface LedgerLimits {
  /** Bootstrap requests the checks may send (the target preparation's already deducted); undefined: no bound. */
  bootstraps?: number;
  /** Time the whole run may spend waiting out 429s, in ms. */
  waitMs: number;
}

/** A property search's runs so far, for the terminal's status line; `done` when the search ended. */
export interface SearchProgress { check: string; search: string; runs: number; done: boolean }

export class RunLedger {
  private readonly shares: Map<Purpose, number> | undefined;
  readonly granted: Record<string, number> = {};
  readonly refused: Record<string, number> = {};
  private waitGrantedMs = 0;
  private readonly shared = new Map<string, Promise<unknown>>();

  constructor(readonly limits: LedgerLimits, readonly onSearch?: (progress: SearchProgress) => void) {
    this.shares = limits.bootstraps === undefined ? undefined : allocate(limits.bootstraps);
  }

  /** How many of `n` bootstrap requests `purpose` may send: its share of the budget, less what it was granted. */
  permit(purpose: Purpose, n: number): { granted: number; budget?: number } {
    const wants = Math.max(0, Math.floor(n));
    let granted = wants;
    if (this.shares) {
      const left = (this.shares.get(purpose) ?? 0) - (this.granted[purpose] ?? 0);
      granted = Math.min(wants, Math.max(0, left));
      if (granted < wants) this.refused[purpose] = (this.refused[purpose] ?? 0) + wants - granted;
    }
    this.granted[purpose] = (this.granted[purpose] ?? 0) + granted;
    return { granted, ...(this.limits.bootstraps !== undefined && { budget: this.limits.bootstraps }) };
  }

  /** Whether the wait budget still covers `ms` more of waiting on a 429 (reserved when it does). */
  reserveWait(ms: number): { granted: boolean; budgetMs: number; leftMs: number } {
    const wanted = Math.max(0, ms);
    const granted = this.waitGrantedMs + wanted <= this.limits.waitMs;
    if (granted) this.waitGrantedMs += wanted;
    return { granted, budgetMs: this.limits.waitMs, leftMs: this.limits.waitMs - this.waitGrantedMs };
  }

  /** What is left of the wait budget, in ms. */
  waitLeftMs(): number {
    return this.limits.waitMs - this.waitGrantedMs;
  }

  /** Work the run does once for its checks (the interop matrix): a check asking for `name` waits for it. */
  share(name: string, work: Promise<unknown>): void {
    work.catch(() => {}); // awaited by whoever asks; an unasked failure is not an unhandled rejection
    this.shared.set(name, work);
  }

  async sharedWork<T>(name: string): Promise<T> {
    const work = this.shared.get(name);
    if (!work) throw new Error(`the run shares no "${name}" (the check runs inside a conformance run)`);
    return (await work) as T;
  }
}

/** The reason a check gives when its purpose got no share of the bootstrap budget. */
export function budgetSpentReason(purpose: string, budget: number | undefined): string {
  return `the run's bootstrap budget (${budget ?? 'unbounded'} requests) leaves no share for ${purpose}; raise --bootstrap-budget to run it (each bootstrap creates a workspace and mails a human)`;
}

/**
 * Reports a property search's runs so far to the run's status line, when it has one: at most every half
 * second and once at the end (progress must not slow the search).
 */
export function searchReporter(ledger: RunLedger, check: string, search: string): { run(runs: number): void; done(runs: number): void } {
  const listen = ledger.onSearch;
  if (!listen) return { run: () => undefined, done: () => undefined };
  let last = -Infinity;
  return {
    run(runs) {
      const now = performance.now();
      if (now - last < 500) return;
      last = now;
      listen({ check, search, runs, done: false });
    },
    done: (runs) => listen({ check, search, runs, done: true }),
  };
}
