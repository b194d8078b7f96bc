/**
 * How a run spends its bootstrap budget on a deployment it does not own. Every `POST /api/agent/bootstrap`
 * may create a workspace and send a mail to a human, and draws on the endpoint's own rate limit, so each
 * purpose gets a fixed share decided before the run from the budget alone: the same budget always buys the
 * same requests, whichever check asks first, so back-to-back and concurrent runs give one verdict.
 *
 * Shares are handed out tier by tier, in list order within a tier: first one request for each check that
 * cannot judge anything without one, then the rest of each check's bodies, then property runs.
 */
export interface Share {
  purpose: Purpose;
  /** Requests this purpose asks for at most. */
  wants: number;
  tier: 1 | 2 | 3;
}

/** The probes of the bad-body checks (suites/bootstrap.suite.ts), by check: bodies each sends. */
export const PROBE_BODIES = {
  'bootstrap-missing-email-4xx': 2,
  'bootstrap-missing-field-no-5xx': 3,
  'bootstrap-wrong-type-4xx': 5,
  'bootstrap-bad-email-4xx': 4,
  'bootstrap-malformed-body-4xx': 6,
} as const satisfies Record<string, number>;

/** A check that probes the bootstrap endpoint with bad bodies. */
export type ProbeCheck = keyof typeof PROBE_BODIES;
/**
 * A list of exactly as many items as `check` has bodies: the suite's probe lists are typed with it, so a body
 * added to a list without its share here (or a share without its body) is a type error, not a body silently
 * left unsent for want of budget.
 */
export type ProbeList<Check extends ProbeCheck, T> = Tuple<T, (typeof PROBE_BODIES)[Check]> & readonly T[];
type Tuple<T, N extends number, R extends T[] = []> = R['length'] extends N ? R : Tuple<T, N, [...R, T]>;
/** The bootstrap properties, each with a share of its own. */
export type BootstrapProperty = 'bootstrap-valid-bodies' | 'bootstrap-spoiled-bodies';

/**
 * What a bootstrap request is for: a name of the table below, so that a purpose the table lacks (which would
 * get no share on a deployment) is a type error, not a silent "budget spent".
 */
export type Purpose = 'bootstrap-reply' | 'rate-limit' | 'plan-cap' | 'published-filter' | 'interop-matrix' | 'streaming' | 'fresh-key'
  | `probe:${ProbeCheck}` | `probe-more:${ProbeCheck}` | `property:${BootstrapProperty}`;

const probeChecks = Object.keys(PROBE_BODIES) as ProbeCheck[];

export const SHARES: Share[] = [
  // The shared valid bootstrap the reply checks read (bootstrap-returns-key, -claim-url, -key-works, mail).
  { purpose: 'bootstrap-reply', wants: 1, tier: 1 },
  // A key of its own to burst with: the rate-limit checks must not throttle the run's key.
  { purpose: 'rate-limit', wants: 1, tier: 1 },
  // A workspace to fill to its plan cap without disturbing the others.
  { purpose: 'plan-cap', wants: 1, tier: 1 },
  ...probeChecks.map((check): Share => ({ purpose: `probe:${check}`, wants: 1, tier: 1 })),
  { purpose: 'published-filter', wants: 1, tier: 2 },
  // The interop matrix's workspace: eight SDK clients' calls and blocks in a rate bucket of their own
  // (without it they use the run's key, and their burst is waited out like any other 429).
  { purpose: 'interop-matrix', wants: 1, tier: 2 },
  { purpose: 'property:bootstrap-valid-bodies', wants: 2, tier: 2 },
  { purpose: 'property:bootstrap-spoiled-bodies', wants: 3, tier: 2 },
  ...probeChecks.map((check): Share => ({ purpose: `probe-more:${check}`, wants: PROBE_BODIES[check] - 1, tier: 2 })),
  { purpose: 'streaming', wants: 1, tier: 3 },
  { purpose: 'fresh-key', wants: 3, tier: 3 },
];

/** Requests the suites would send with no budget at all (the keys the target preparation makes excluded). */
export const FULL_PLAN = SHARES.reduce((n, s) => n + s.wants, 0);

/** Each purpose's share of `budget` requests. */
export function allocate(budget: number): Map<Purpose, number> {
  const shares = new Map(SHARES.map((s) => [s.purpose, 0]));
  let left = Math.max(0, Math.floor(budget));
  for (const tier of [1, 2, 3] as const) {
    for (const s of SHARES.filter((x) => x.tier === tier)) {
      const n = Math.min(s.wants, left);
      shares.set(s.purpose, n);
      left -= n;
    }
  }
  return shares;
}
