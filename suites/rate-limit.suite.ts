import type { RunState } from '../src/engine/run-state.js';
import { adminPost } from '../src/targets/admin-call.js';
import { parseRateLimit, parseRateLimitPolicy, parseRetryAfter } from '../src/wire/rate-limit-headers.js';
import { runSecrets, type CheckContext, defineSuite } from '../src/engine/check.js';
import { bootstrapWorkspace } from '../src/judging/fresh-workspace.js';
import { burstBound, describeBurstBound, describePlan, rateOf, type RunLimits } from '../src/profile/limits.js';
import { McpSession } from '../src/mcp/mcp-session.js';
import type { TargetInfo } from '../src/targets/target-info.js';
import { WireClient, type WireResponse } from '../src/wire/client.js';
import type { Exchange } from '../src/wire/exchange.js';
import { describeOwnLoad, meterOwnLoad, SATURATED, type OwnLoad } from '../src/kit/harness-load.js';
import { burstSender } from '../src/judging/burst-sender.js';

const { check, describe, seal } = defineSuite('rate-limit');

// "Per-plan rate limits exist" (service.md §Limits), numbers not shown: the harness holds a key to the limits
// declared for its plan (src/profile/limits.ts). A burst of tools/list stops at the first 429; with declared limits it
// also stops once more requests were served than the plan's bound (a failure), without them after BURST_MAX
// requests (nothing to judge). Either way at most BURST_DEADLINE_MS. A token bucket serves burst + rate x t, so
// a burst can only pass the bound by sending faster than the declared rate for long enough: the harness sends
// as fast as it can (src/judging/burst-sender.ts, more requests in flight while its own event loop has room), and when
// it could not outpace the rate it says so, with what held it back (its own load, or slow replies): a burst the
// harness could not generate is never the service's fault.

const BURST_MAX = 2000;
/** Requests in flight at the start; more are added while the harness's event loop has room, up to the most. */
const BURST_CONCURRENCY = 16;
const BURST_MAX_CONCURRENCY = 128;
const BURST_DEADLINE_MS = 15_000;
/** How often the burst reads its own rate and load, adds requests in flight, and asks whether it can still pass the bound. */
const BURST_WINDOW_MS = 500;
/**
 * The burst gives up early only after this long: its first seconds run before the JIT has warmed up and before
 * more requests are in flight (on a starved machine a request then cost some 2 ms of CPU, later a third of that).
 */
const BURST_MIN_TRY_MS = 8_000;
/** Longest Retry-After the harness is prepared to wait out. */
const MAX_WAIT_MS = 20_000;
/** Added to the wait: timers and clocks are not exact, and delay-seconds already round up. */
const WAIT_SLACK_MS = 50;

type Rate = { ratePerSecond: number; burst: number };

interface Burst {
  /** Whose key: "a workspace bootstrapped for rate-limit", "the run's key (--api-key)", ... */
  keyNote: string;
  plan?: string;
  /** The declared rate and burst of `plan`, when both are declared. */
  declared?: Rate;
  sent: number;
  /** Replies other than 429 received before the first 429 (or before the burst stopped). */
  served: number;
  statuses: Record<number, number>;
  /** From the first request to the first 429, or to the stop. */
  elapsedMs: number;
  /**
   * Why the burst ended: a 429, the served count passed `bound`, the request count, the deadline, or `short`:
   * even at its best rate so far the burst could not have passed the bound by the deadline.
   */
  stop: '429' | 'bound' | 'max' | 'deadline' | 'short' | 'no key';
  /** The served bound at the stop, with its computation. */
  bound?: { value: number; how: string };
  /** The most requests in flight at once, and the best rate of any window of the burst (req/s sent). */
  concurrency: number;
  bestRate: number;
  /** Mean time from sending a request to the end of its reply, in ms. */
  meanReplyMs: number;
  /** The harness's own load during the burst. */
  load?: OwnLoad;
  /** The first and the last 429 (the last one's Retry-After is the freshest), and a 200 for comparison. */
  first429?: { res: WireResponse; exchange: Exchange };
  last429?: { res: WireResponse; exchange: Exchange; receivedAt: number };
  ok?: { res: WireResponse; exchange: Exchange };
  /** An MCP session on the burst's key writing into a check's own wire log. */
  session(c: CheckContext): McpSession;
  setup: Exchange[];
}

/**
 * Bursts tools/list on `key` until a 429, or until more than `stopAbove(elapsedMs)` requests were served
 * (the bound), BURST_MAX requests without a bound, or the deadline; with a bound, it gives up early once even
 * its best rate could not pass the bound by the deadline.
 *
 * Why tools/list, and not a cheaper ping or a notification: the burst must be made of requests the service's
 * rate limit applies to, and on a deployment the harness does not know its limiter. The description names
 * tools/list as a request of the endpoint, and it does work for the caller; a limiter may well let liveness
 * pings or notifications (which ask for no work) through, and a burst of those met with no 429 would blame a
 * service that limits everything it does work for. Its cost to the harness was the reply's record, not the
 * request: src/judging/burst-sender.ts keeps only the status (some 0.4 ms of a core against 1 ms and more).
 */
async function burst(run: RunState, target: TargetInfo, key: string | undefined, secrets: string[], base: Pick<Burst, 'keyNote' | 'plan' | 'declared' | 'setup'>, stopAbove?: (elapsedMs: number) => { value: number; how: string }): Promise<Burst> {
  const info: TargetInfo = { ...target, apiKey: key };
  const sessionOn = (log: Exchange[]) => new McpSession(new WireClient(log, () => secrets, { pace: false, run }), info);
  const b: Burst = { ...base, sent: 0, served: 0, statuses: {}, elapsedMs: 0, stop: 'no key', concurrency: 0, bestRate: 0, meanReplyMs: 0, session: (c) => sessionOn(c.http.log) };
  if (!key) return b;
  const send = burstSender(sessionOn([]), 'tools/list', () => secrets, () => sessionOn([]));
  const meter = meterOwnLoad();
  const started = performance.now();
  let stopped: Burst['stop'] | undefined;
  let replyMs = 0;
  const stopAt = (elapsed: number, why: Burst['stop']) => {
    stopped ??= why;
    b.elapsedMs = Math.round(elapsed);
    const bound = stopAbove?.(elapsed);
    if (bound) b.bound = bound;
  };
  const sender = async () => {
    while (!stopped) {
      const elapsed = performance.now() - started;
      const bound = stopAbove?.(elapsed);
      if (bound && b.served > bound.value) stopAt(elapsed, 'bound');
      else if (!bound && b.sent >= BURST_MAX) stopAt(elapsed, 'max');
      else if (elapsed >= BURST_DEADLINE_MS) stopAt(elapsed, 'deadline');
      if (stopped) break;
      b.sent += 1;
      const reply = await send();
      replyMs += reply.ms;
      b.statuses[reply.status] = (b.statuses[reply.status] ?? 0) + 1;
      if (reply.status === 429) {
        if (!b.first429) {
          b.elapsedMs = Math.round(performance.now() - started);
          b.bound = stopAbove?.(b.elapsedMs);
          b.first429 = reply.record();
        }
        stopped ??= '429';
        b.last429 = { ...reply.record(), receivedAt: performance.now() };
      } else {
        if (!b.first429) b.served += 1;
        if (reply.status === 200 && !b.ok) b.ok = reply.record();
      }
    }
  };
  const senders: Promise<void>[] = [];
  let failure: { err: unknown } | undefined;
  const addSenders = (n: number) => {
    // A request that failed ends the burst (every sender stops), and its error is the burst's.
    for (let i = 0; i < n; i++) {
      senders.push(sender().catch((err: unknown) => {
        failure ??= { err };
        stopped ??= 'deadline';
      }));
    }
    b.concurrency = senders.length;
  };
  addSenders(BURST_CONCURRENCY);
  // Each window: the rate it reached; more requests in flight while the event loop has room (the replies, not the
  // harness, set the pace then); and, past the first seconds, whether the bound can still be passed in time.
  let window = { at: started, sent: 0, load: meter.read() };
  const tick = setInterval(() => {
    if (stopped) return;
    const now = performance.now();
    const load = meter.read();
    const rate = ((b.sent - window.sent) * 1000) / (now - window.at);
    const busy = (load.busy * load.elapsedMs - window.load.busy * window.load.elapsedMs) / Math.max(1, load.elapsedMs - window.load.elapsedMs);
    b.bestRate = Math.max(b.bestRate, rate);
    window = { at: now, sent: b.sent, load };
    const elapsed = now - started;
    // Only a declared rate is worth more load on the deployment; twice that rate outpaces it soon enough.
    const wanted = b.declared && rate < 2 * b.declared.ratePerSecond;
    if (wanted && busy < SATURATED && senders.length < BURST_MAX_CONCURRENCY) addSenders(Math.min(senders.length, BURST_MAX_CONCURRENCY - senders.length));
    const atDeadline = stopAbove?.(BURST_DEADLINE_MS);
    if (atDeadline && elapsed >= BURST_MIN_TRY_MS && b.served + (b.bestRate * (BURST_DEADLINE_MS - elapsed)) / 1000 <= atDeadline.value) stopAt(elapsed, 'short');
  }, BURST_WINDOW_MS);
  try {
    // Senders added while others run are awaited too.
    for (let i = 0; i < senders.length; i++) await senders[i];
  } finally {
    clearInterval(tick);
    b.load = meter.stop();
  }
  if (failure) throw failure.err;
  b.stop = stopped ?? 'deadline';
  b.meanReplyMs = b.sent > 0 ? replyMs / b.sent : 0;
  if (b.bestRate === 0 && b.elapsedMs > 0) b.bestRate = (b.sent * 1000) / b.elapsedMs;
  return b;
}

const statusesOf = (b: Burst) => Object.entries(b.statuses).map(([s, n]) => `${n} x ${s}`).join(', ') || 'none';
const perSecond = (n: number) => (n >= 10 ? Math.round(n) : Math.round(n * 10) / 10);
/** Requests sent per second over the whole burst. */
const sendRate = (b: Burst) => (b.elapsedMs > 0 ? (b.sent * 1000) / b.elapsedMs : 0);

/** What the burst spent and met, as every row built on it records. */
function describeBurst(b: Burst): string {
  const declared = b.plan ? ` on plan "${b.plan}"${b.declared ? ` (declared ${b.declared.ratePerSecond}/s, burst ${b.declared.burst})` : ' (no rate or burst declared)'}` : '';
  const bound = b.bound ? `; served bound ${b.bound.how}` : b.declared ? '' : `; undeclared limits: bounded by ${BURST_MAX} requests`;
  const pace = `${perSecond(sendRate(b))} req/s (best ${BURST_WINDOW_MS} ms window ${perSecond(b.bestRate)}/s), up to ${b.concurrency} in flight, replies in ${b.meanReplyMs.toFixed(1)} ms on average`;
  return `burst with ${b.keyNote}${declared}: ${b.sent} tools/list requests sent, ${pace}, ${b.served} served before ${b.first429 ? 'the first 429' : 'the stop'} in ${b.elapsedMs} ms (${statusesOf(b)})${bound}${b.load ? `; the harness meanwhile: ${describeOwnLoad(b.load)}` : ''}`;
}

/**
 * Why a burst that met no 429 did not pass its bound either, as the truth: the harness could not send faster
 * than `ratePerSecond`, and what held it back. Its own event loop busy nearly all the time: this machine could
 * not send faster (never the service's fault). Otherwise the replies set the pace (requests in flight / reply
 * time) while the harness had room: the service answered too slowly to be outpaced.
 */
function shortOfBound(b: Burst, what: string, ratePerSecond: number, target: TargetInfo): string {
  const sent = `${perSecond(sendRate(b))} req/s sent (best ${perSecond(b.bestRate)}/s in a ${BURST_WINDOW_MS} ms window)`;
  const load = b.load ? describeOwnLoad(b.load) : 'its load not measured';
  const end = b.stop === 'short'
    ? `given up after ${(b.elapsedMs / 1000).toFixed(1)} s, since even at its best rate the bound could not be passed within ${BURST_DEADLINE_MS / 1000} s`
    : `stopped at the deadline of ${BURST_DEADLINE_MS / 1000} s`;
  const within = `${b.served} served without a 429, within the bound ${b.bound?.how ?? 'not reached'}`;
  // The embedded server shares the machine (a thread of this very process): a starved machine slows its replies too.
  const shared = target.kind === 'embedded' ? '; the embedded server is a thread of the harness\'s own process, on the same machine' : '';
  if (!b.load || b.load.busy >= SATURATED) {
    return `the harness could not outpace ${what} on this machine: ${sent} (its own limit: ${load}, up to ${b.concurrency} requests in flight) against a declared ${ratePerSecond}/s; ${end}; ${within}`;
  }
  return `the harness could not outpace ${what}: the service's replies set the pace, not the harness: ${sent} with up to ${b.concurrency} requests in flight, each reply taking ${b.meanReplyMs.toFixed(1)} ms on average (at most ${perSecond((b.concurrency * 1000) / Math.max(1, b.meanReplyMs))}/s), while the harness had room (${load}), against a declared ${ratePerSecond}/s${shared}; ${end}; ${within}`;
}

const boundFor = (declared: Rate | undefined) => declared && ((ms: number) => ({ value: burstBound(declared, ms), how: describeBurstBound(declared, ms) }));

// --- the shared burst: rate-limit-exists and the Retry-After rows --------------------------------------------


/**
 * The key to burst: one of its own (bootstrapped: no other check shares its bucket) when the bootstrap plan's
 * limits are declared or nothing is; else the run's key when its plan's are (the other checks then wait out
 * what the burst leaves, within the wait budget).
 */
async function runShared(run: RunState, target: TargetInfo): Promise<Burst> {
  const { limits } = target;
  const bootstrapRate = rateOf(limits, limits?.bootstrapPlan);
  const keyRate = rateOf(limits, limits?.keyPlan);
  const secrets = runSecrets(target);
  // A server with an admin channel (the harness's own) makes a workspace on any configured plan, as its settings
  // would: the burst goes to the declared plan with the lowest rate, the one any machine outpaces (a burst short of
  // the declared rate judges nothing, issue 33). Not when the user declared limits of their own (--limits).
  const slowest = target.admin && limits && !limits.sources.some((x) => x.startsWith('--')) ? slowestPlan(limits) : undefined;
  if (slowest && (!bootstrapRate || slowest.declared.ratePerSecond < bootstrapRate.ratePerSecond)) {
    const key = await mintOnPlan(run, target.admin!, slowest.plan, 'rate-limit burst');
    secrets.push(key);
    run.keys.learnSecret(key);
    return burst(run, target, key, secrets, { keyNote: 'a workspace the admin channel made on the slowest declared plan', plan: slowest.plan, declared: slowest.declared, setup: [] }, boundFor(slowest.declared));
  }
  if (target.apiKey && keyRate && (!bootstrapRate || !target.canBootstrap)) {
    return burst(run, target, target.apiKey, secrets, { keyNote: 'the run\'s key', plan: limits!.keyPlan, declared: keyRate, setup: [] }, boundFor(keyRate));
  }
  const own = await bootstrapWorkspace(run, target, secrets, 'rate-limit');
  return burst(run, target, own.key, secrets, { keyNote: own.note, plan: limits?.bootstrapPlan, declared: bootstrapRate, setup: own.exchanges }, boundFor(bootstrapRate));
}

async function sharedBurst(c: CheckContext): Promise<Burst> {
  const b = await c.run.once('rate-limit burst', () => runShared(c.run, c.target));
  c.http.log.push(...b.setup);
  if (c.target.limits) c.observe(`declared limits from ${c.target.limits.sources.join(', ')}`);
  if (b.stop === 'no key') c.notTestable(`no key to burst with (${b.keyNote}), and no declared rate limit for the run's key's plan (--limits rate=<r>,burst=<b>) that would allow bursting the run's own key`);
  c.observe(describeBurst(b));
  if (b.ok) c.http.log.push(b.ok.exchange);
  if (b.first429) c.http.log.push(b.first429.exchange);
  if (b.last429 && b.last429.exchange !== b.first429?.exchange) c.http.log.push(b.last429.exchange);
  return b;
}

/** The shared burst's 429s; not testable when none came (rate-limit-exists judges whether one had to). */
async function tooManyRequests(c: CheckContext): Promise<Burst & { first429: NonNullable<Burst['first429']>; last429: NonNullable<Burst['last429']> }> {
  const b = await sharedBurst(c);
  if (!b.first429 || !b.last429) c.notTestable(`no 429 within ${b.sent} requests in ${b.elapsedMs} ms (${statusesOf(b)})${b.declared ? ' (rate-limit-exists judges that against the declared limits)' : `: the burst did not outpace the limit, if there is one, within the harness's bound (${BURST_MAX} requests, ${BURST_DEADLINE_MS / 1000} s)`}`);
  return b as Burst & { first429: NonNullable<Burst['first429']>; last429: NonNullable<Burst['last429']> };
}

/** What the RateLimit-Policy and RateLimit fields of a reply say, or why they do not parse (RFC 9651 via src/wire/rate-limit-headers.ts). */
function describeRateLimitFields(res: WireResponse): string[] {
  const notes: string[] = [];
  for (const [name, parse] of [['ratelimit-policy', parseRateLimitPolicy], ['ratelimit', parseRateLimit]] as const) {
    const value = res.headers[name];
    if (value === undefined) {
      notes.push(`${name}: absent`);
      continue;
    }
    const parsed = parse(value);
    notes.push(`${name}: ${JSON.stringify(value)} ${parsed.ok ? `parses as ${parsed.value.length} item(s)` : `does not parse: ${parsed.why}`}`);
  }
  return notes;
}

/** The declared plans with a rate and a burst, slowest (lowest rate) first. */
function declaredPlans(limits: RunLimits): { plan: string; declared: Rate }[] {
  return Object.keys(limits.plans).flatMap((plan) => {
    const declared = rateOf(limits, plan);
    return declared ? [{ plan, declared }] : [];
  });
}

function slowestPlan(limits: RunLimits): { plan: string; declared: Rate } | undefined {
  return declaredPlans(limits).sort((a, b) => a.declared.ratePerSecond - b.declared.ratePerSecond)[0];
}

/** A key of a new workspace on `plan`, made through the admin channel (the embedded target's settings). */
async function mintOnPlan(run: RunState, admin: NonNullable<TargetInfo['admin']>, plan: string, label: string): Promise<string> {
  const res = await adminPost(run.pool, admin, '/workspaces/create', { plan, label: `${label} ${plan}` });
  const json = res.json() as { apiKey?: string; error?: string };
  if (res.status !== 200 || !json.apiKey) throw new Error(`admin channel: a workspace on plan "${plan}" was refused: ${res.status} ${json.error ?? ''}`);
  return json.apiKey;
}

// --- two plans: rate-limit-plans-differ -----------------------------------------------------------------------

interface KeyOnPlan {
  key: string;
  plan: string;
  declared: Rate;
  note: string;
}

/** Two keys on declared plans whose bursts a burst can tell apart, lower first; or why there are none. */
async function keysOnTwoPlans(c: CheckContext, limits: RunLimits | undefined): Promise<[KeyOnPlan, KeyOnPlan] | string> {
  const separated = (a: KeyOnPlan, b: KeyOnPlan) => b.declared.burst > burstBound(a.declared, 0);
  const order = (a: KeyOnPlan, b: KeyOnPlan): [KeyOnPlan, KeyOnPlan] => (a.declared.burst <= b.declared.burst ? [a, b] : [b, a]);
  const { apiKey, otherKey } = c.target;
  const keyRate = rateOf(limits, limits?.keyPlan);
  const otherRate = rateOf(limits, limits?.otherKeyPlan);
  let userKeys: string;
  if (apiKey && otherKey && keyRate && otherRate && limits!.keyPlan !== limits!.otherKeyPlan) {
    const [low, high] = order({ key: apiKey, plan: limits!.keyPlan!, declared: keyRate, note: 'the run\'s key' }, { key: otherKey, plan: limits!.otherKeyPlan!, declared: otherRate, note: 'the other key' });
    if (separated(low, high)) return [low, high];
    userKeys = `the declared bursts of plans "${low.plan}" (${low.declared.burst}) and "${high.plan}" (${high.declared.burst}) are too close for a burst to tell apart (the higher needs more than ${describeBurstBound(low.declared, 0)})`;
  } else {
    userKeys = !otherKey ? 'the run holds no second key (--other-key)'
      : limits?.keyPlan && limits.keyPlan === limits.otherKeyPlan ? `both keys the run holds are on plan "${limits.keyPlan}"`
      : 'the plans of the run\'s two keys are not both declared with a rate and a burst';
  }
  // The embedded target's admin channel makes workspaces on any configured plan, as the service's own settings would.
  const { admin } = c.target;
  if (admin && limits) {
    const plans = declaredPlans(limits).sort((a, b) => a.declared.burst - b.declared.burst);
    const low = plans[0];
    const high = low && plans.find((p) => p.declared.burst > burstBound(low.declared, 0));
    if (low && high) {
      const mint = async (plan: string) => {
        const key = await mintOnPlan(c.run, admin, plan, 'rate-limit');
        c.addSecret(key);
        return key;
      };
      return [
        { key: await mint(low.plan), plan: low.plan, declared: low.declared, note: 'a workspace the admin channel made' },
        { key: await mint(high.plan), plan: high.plan, declared: high.declared, note: 'a workspace the admin channel made' },
      ];
    }
  }
  return `${userKeys}. Comparing plans needs keys on two plans: --api-key on one and --other-key on another, their limits declared with --limits and --other-limits (or the profile's limits.keyPlan and limits.otherKeyPlan)`;
}

describe('rate limits', () => {
  // "Per-plan rate limits exist." Held to the declared limits of the burst key's plan: a token bucket serves at
  // most burst + rate x elapsed; more than 1.5 x burst + rate x elapsed + 10 served without a 429 is no limit.
  check({ ids: 'rate-limit-exists', name: 'a burst on a key of a declared plan meets a 429 within the plan\'s bound', rateLimit: true, run: async (c) => {
    const b = await sharedBurst(c);
    if (!b.declared) {
      const plan = b.plan ? `${describePlan(b.plan, c.target.limits?.plans[b.plan])}, the plan of the burst's key (the bootstrap plan), declares no rate and burst` : 'no plan is declared for the burst\'s key (the bootstrap plan, or the plan of --api-key)';
      c.notTestable(`no declared limit to hold the service to: ${plan}; declare it in the profile's "limits" or pass --limits rate=<req/s>,burst=<n>`);
    }
    if (b.stop === 'deadline' || b.stop === 'short') c.notTestable(shortOfBound(b, 'the declared rate', b.declared!.ratePerSecond, c.target));
    c.verify(b.stop === '429', `no 429 within the declared limits: ${b.served} requests served in ${b.elapsedMs} ms on plan "${b.plan}" (declared ${b.declared!.ratePerSecond}/s, burst ${b.declared!.burst}), more than the bound ${b.bound?.how}`, `a 429 by ${b.bound?.value} served requests`, { served: b.served, elapsedMs: b.elapsedMs, statuses: b.statuses });
    c.verify(b.served <= b.bound!.value, `the first 429 came only after ${b.served} served requests, more than the bound ${b.bound!.how}`, `<= ${b.bound!.value}`, b.served);
  } });

  // "Per-plan rate limits exist." Limits per plan: keys on two plans declared with different bursts are
  // throttled in that order. The lower plan's key meets a 429 within its bound; the higher plan's key is
  // served past that bound (its burst stops there, so the comparison costs little of the higher plan).
  check({ ids: 'rate-limit-plans-differ', name: 'keys on two declared plans are throttled in the declared order', timeout: 60_000, rateLimit: true, run: async (c) => {
    const pair = await keysOnTwoPlans(c, c.target.limits);
    if (typeof pair === 'string') return c.notTestable(pair);
    const [low, high] = pair;
    const secrets = runSecrets(c.target, [low.key, high.key]);
    const lowBurst = await burst(c.run, c.target, low.key, secrets, { keyNote: low.note, plan: low.plan, declared: low.declared, setup: [] }, boundFor(low.declared));
    c.observe(describeBurst(lowBurst));
    if (lowBurst.first429) c.http.log.push(lowBurst.first429.exchange);
    if (lowBurst.stop === 'deadline' || lowBurst.stop === 'short') c.notTestable(shortOfBound(lowBurst, `the declared rate of plan "${low.plan}"`, low.declared.ratePerSecond, c.target));
    c.verify(lowBurst.stop === '429', `the key on the lower plan "${low.plan}" (declared burst ${low.declared.burst}) served ${lowBurst.served} requests without a 429, more than its bound ${lowBurst.bound?.how}: the plans are not throttled as declared`, `a 429 by ${lowBurst.bound?.value}`, lowBurst.served);
    // The higher plan's key passes once it is served more than the lower plan's bound.
    const highBurst = await burst(c.run, c.target, high.key, secrets, { keyNote: high.note, plan: high.plan, declared: high.declared, setup: [] }, boundFor(low.declared));
    c.observe(describeBurst(highBurst).replace('served bound', `served bound of the lower plan "${low.plan}"`));
    if (highBurst.first429) c.http.log.push(highBurst.first429.exchange);
    if (highBurst.stop === 'deadline' || highBurst.stop === 'short') c.notTestable(shortOfBound(highBurst, `the declared rate of the lower plan "${low.plan}" on plan "${high.plan}"'s key`, low.declared.ratePerSecond, c.target));
    c.verify(highBurst.stop === 'bound', `the key on the higher plan "${high.plan}" (declared burst ${high.declared.burst}) was refused after ${highBurst.served} served requests, within the bound of the lower plan "${low.plan}" (${highBurst.bound?.how}): the plans are not told apart`, `more than ${highBurst.bound?.value} served`, highBurst.served);
    c.observe(`plan "${low.plan}" throttled after ${lowBurst.served}; plan "${high.plan}" served ${highBurst.served} without a 429`);
  } });

  // RFC 6585 §4: "The response representations SHOULD include details explaining the condition"
  check({ ids: 'rate-limit-429-explained', name: 'a 429 has a body explaining the condition', rateLimit: true, run: async (c) => {
    const b = await tooManyRequests(c);
    const res = b.first429.res;
    for (const note of describeRateLimitFields(res)) c.observe(`429 ${note}`);
    if (b.ok) for (const note of describeRateLimitFields(b.ok.res)) c.observe(`200 ${note}`);
    c.observe(`429 body: ${res.text.slice(0, 300)}`);
    c.verify(res.text.trim().length > 0, 'the 429 has an empty body: nothing explains the condition', 'a body explaining the limit', '');
  } });

  // RFC 6585 §4: "The response representations ... MAY include a Retry-After header indicating how long to
  // wait before making a new request." (A MAY: a 429 without one is a note, never a failure.)
  check({ ids: 'rate-limit-retry-after', name: 'a 429 carries Retry-After, saying how long to wait', rateLimit: true, run: async (c) => {
    const res = (await tooManyRequests(c)).first429.res;
    c.verify(res.headers['retry-after'] !== undefined, 'the 429 carries no Retry-After: nothing says how long to wait', 'Retry-After', null);
  } });

  // RFC 9110 §2.2: "A sender MUST NOT generate protocol elements that do not match the grammar defined by the
  // corresponding ABNF rules." §10.2.3: "Retry-After = HTTP-date / delay-seconds".
  check({ ids: 'rate-limit-retry-after-syntax', name: 'a Retry-After on a 429 is delay-seconds or an HTTP-date', rateLimit: true, run: async (c) => {
    const res = (await tooManyRequests(c)).first429.res;
    const value = res.headers['retry-after'];
    if (value === undefined) c.notApplicable('the 429 carries no Retry-After, so there is no value to parse (rate-limit-retry-after notes its absence)');
    const parsed = parseRetryAfter(value, res.headers.date);
    c.verify(parsed.ok, `the 429's Retry-After is ${parsed.ok ? 'fine' : parsed.why}`, 'Retry-After: <delay-seconds> or <HTTP-date>', value);
  } });

  // RFC 9110 §10.2.3: "Servers send the "Retry-After" header field to indicate how long the user agent ought
  // to wait before making a follow-up request." Waiting that long is enough: the follow-up succeeds.
  check({ ids: 'rate-limit-retry-after-honest', name: 'after waiting Retry-After, the next request is served', timeout: 60_000, rateLimit: true, run: async (c) => {
    const b = await tooManyRequests(c);
    const value = b.last429.res.headers['retry-after'];
    const parsed = parseRetryAfter(value, b.last429.res.headers.date);
    if (!parsed.ok) return c.notTestable(`the last 429's Retry-After is ${parsed.why} (rate-limit-retry-after and -syntax report it)`);
    const waitMs = parsed.seconds * 1000;
    if (waitMs > MAX_WAIT_MS) c.notTestable(`Retry-After asks for ${Math.round(parsed.seconds)} s, longer than the ${MAX_WAIT_MS / 1000} s the harness waits`);
    const state = b.last429.res.headers.ratelimit === undefined ? undefined : parseRateLimit(b.last429.res.headers.ratelimit);
    const resetS = state?.ok ? state.value[0]?.resetS : undefined;
    if (resetS !== undefined) c.observe(`RateLimit t=${resetS} s beside Retry-After ${value} (RATE-08: Retry-After should not point earlier)`);
    const remaining = b.last429.receivedAt + waitMs + WAIT_SLACK_MS - performance.now();
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
    c.observe(`waited ${Math.round(waitMs)} ms (Retry-After: ${value}, ${parsed.form}) after the last 429, then sent one request`);
    const res = await b.session(c).request('tools/list');
    c.verify(res.status !== 429, `the request after waiting Retry-After (${value}) was refused again with 429${res.headers['retry-after'] ? ` (Retry-After: ${res.headers['retry-after']})` : ''}`, 'served (not 429)', res.status);
    c.verify(res.status === 200, `the request after waiting answered ${res.status}`, 200, res.status);
  } });
});

export default seal();
