/**
 * The rate-limit probe: what a release engineer runs against staging to learn the real limits of a key.
 *
 *   1. burst: an idle key, requests back to back until 429s appear;
 *   2. sustained limit: open-model steps of rising offered rate (geometric, then bisection between the last
 *      clean and the first throttled step); every step starts from an emptied bucket, so a step over the
 *      limit is served at the refill rate only, and its accepted rate is the sustained limit;
 *   3. Retry-After: present on every 429, and honest (a retry after it is served);
 *   4. isolation: while key A is refused, a sibling key and a key of another workspace are still served;
 *      A's step, well over the limit, also tells a token bucket from a fixed window.
 *
 * Everything is bounded: a time budget, a maximum offered rate, a request cap, requests in flight.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { burstFromVolley, throttle, volley, type Volley, type VolleyOptions } from './burst.js';
import { ProbeClient, isOk, isThrottled, type ProbeReply } from './client.js';
import { acceptedRate, fmt, limiterShape, median, sustainedFromSteps, throttledShare, type ShapeFinding, type SustainedEstimate } from './analysis.js';
import { headerFindings, parseRetryAfter, type HeaderFindings } from '../../src/wire/rate-limit-headers.js';
import { probeIsolation, type IsolationFindings } from './isolation.js';
import { headerLines, judge, retryAfterLine, yesNo } from './judge.js';
import type { KeyRing } from './keys.js';
import type { On429Tally, ProbeResult, StopReason } from './probe-result.js';
import { probeRetryAfter, type RetryAfterFindings } from './retry-after.js';
import { bracket, classifyStep, DISTURBED_LATE_MS, disturbance, nextStep, openStep, type NextStep, type StepClass, type StepOutcome, type SteppingRules } from './stepper.js';
import type { LoadTarget } from '../target.js';

export type { ProbeResult, StepRow, StopReason } from './probe-result.js';

/** Requests in flight at once, at most (open-model steps). */
export const MAX_IN_FLIGHT = 256;
/** Requests in flight during a volley that empties a bucket. */
const VOLLEY_CONCURRENCY = 16;

export class ProbeUnreachableError extends Error {}

export interface ProbeOptions {
  target: LoadTarget;
  keys: KeyRing;
  /** The plan under test and its configured limits, when known (embedded and container targets). */
  plan?: string;
  configured?: { ratePerSecond: number; burst: number };
  /** Time budget of the traffic, s. */
  maxTimeS: number;
  /** Highest offered rate, requests/s. */
  maxRate: number;
  startRate: number;
  /** Duration of one step, s (longer for slow steps: at least 5 requests). */
  stepTimeS: number;
  refineSteps: number;
  /** Requests in all. */
  maxRequests: number;
  /** Requests in one volley: a burst larger than this is not found. */
  maxBurst: number;
  tolerancePct: number;
  expectRate?: number;
  expectBurst?: number;
  log: (line: string) => void;
  /** Called every PROGRESS_EVERY_MS while the probe runs (the CLI's progress line). */
  progress?: (soFar: ProbeSoFar) => void;
}

/** The probe so far: seconds since it started, requests sent, 429s, and errors (replies neither 2xx nor 429, or none). */
export interface ProbeSoFar { elapsedS: number; sent: number; throttled: number; errors: number }

export const PROGRESS_EVERY_MS = 2000;


const TOOL_VERSION = '1';

type IdleVolley = Volley & { origin: 'first' | 'fresh key' | 'refilled' };
type Step = StepOutcome & { phase: 'geometric' | 'bisect'; class: StepClass };

/** Every 429 of the probe is checked for Retry-After; one 2xx and one 429 keep their fields for the report. */
class ReplyTally {
  readonly on429: On429Tally = { total: 0, withRetryAfter: 0, missing: 0, malformed: 0, rpcCodes: [] };
  sample2xx: ProbeReply | undefined;
  sample429: ProbeReply | undefined;
  /** Replies neither served nor throttled (another status, or no reply at all). */
  errors = 0;

  readonly onReply = (r: ProbeReply): void => {
    if (isOk(r)) this.sample2xx ??= r;
    if (!isThrottled(r)) {
      if (!isOk(r)) this.errors++;
      return;
    }
    this.sample429 ??= r;
    this.on429.total++;
    const ra = r.headers['retry-after'];
    if (ra === undefined) this.on429.missing++;
    else if (parseRetryAfter(ra, r.headers.date).ok) this.on429.withRetryAfter++;
    else this.on429.malformed++;
    if (r.rpcCode !== undefined && !this.on429.rpcCodes.includes(r.rpcCode)) this.on429.rpcCodes.push(r.rpcCode);
  };
}

/** What the steps of one probe share. */
interface ProbeRun {
  o: ProbeOptions;
  client: ProbeClient;
  tally: ReplyTally;
  /** Seconds since the first request could go out. */
  elapsedS: () => number;
  volley: VolleyOptions & { maxSingles: number };
  /** Volleys from idle keys: the first (on cold connections and, maybe, a cold server) and later ones. */
  idleVolleys: IdleVolley[];
  /** Length of key A's step in the isolation test, s. */
  isolationS: number;
}

export async function runProbe(o: ProbeOptions): Promise<ProbeResult> {
  const startedAt = new Date().toISOString();
  const hardStop = new AbortController();
  // Requests still in flight well after the budget are cut off.
  const hardTimer = setTimeout(() => hardStop.abort(), (o.maxTimeS + 15) * 1000);
  hardTimer.unref();
  const run = openRun(o, hardStop.signal);
  const progress = o.progress;
  const ticker = progress && setInterval(() => progress({ elapsedS: run.elapsedS(), sent: run.client.sent, throttled: run.tally.on429.total, errors: run.tally.errors }), PROGRESS_EVERY_MS);
  ticker?.unref();
  try {
    const first = await firstBurst(run);
    const reserveS = reserveAfterSteps(run, first);
    const stepping = await stepTheRate(run, reserveS);
    const sustained = sustainedFromSteps(stepping.steps);
    await burstAgain(run, first, sustained.ratePerSecond, reserveS);
    const burst = estimateBurst(run.idleVolleys, sustained.ratePerSecond);
    const retryAfter = await retryAfterHonesty(run);
    const isolation = await isolationStep(run, sustained.ratePerSecond, stepping.noLimitUpTo, burst.known);
    return assemble(run, { startedAt, first, stepping, sustained, burst, retryAfter, isolation });
  } finally {
    clearInterval(ticker);
    clearTimeout(hardTimer);
    await run.client.close();
  }
}

function openRun(o: ProbeOptions, signal: AbortSignal): ProbeRun {
  const tally = new ReplyTally();
  const client = new ProbeClient({ baseUrl: o.target.baseUrl, connections: MAX_IN_FLIGHT, maxRequests: o.maxRequests, timeoutMs: 10_000, signal, onReply: tally.onReply });
  const t0 = client.now();
  return {
    o,
    client,
    tally,
    elapsedS: () => (client.now() - t0) / 1000,
    volley: { concurrency: VOLLEY_CONCURRENCY, maxRequests: o.maxBurst, maxMs: Math.max(2000, (o.maxTimeS * 1000) / 10), maxSingles: 2 * VOLLEY_CONCURRENCY + 20 },
    idleVolleys: [],
    isolationS: Math.max(1, o.stepTimeS),
  };
}

// ---------------------------------------------------------------------------------------------------
// 1. The burst

/** The first volley, from an idle key. Also the reachability check: no traffic goes on against a dead target. */
async function firstBurst(run: ProbeRun): Promise<Volley> {
  const { o, client } = run;
  const burstKey = await o.keys.fresh('burst');
  const first = await volley(client, burstKey, run.volley);
  if (first.sent > 0 && first.replies.every((r) => r.status === 0)) throw new ProbeUnreachableError(`${o.target.description} did not answer: ${first.replies[0]!.error ?? 'no reply'}`);
  const refused = first.replies.find((r) => r.status === 401 || r.status === 403);
  if (refused && first.ok === 0) throw new ProbeUnreachableError(`the key was refused (HTTP ${refused.status}): give a live key (--api-key or MCP_API_KEY)`);
  run.idleVolleys.push({ ...first, origin: 'first' });
  o.log(first.first429
    ? `burst: ${first.ok} served, then 429 (${first.sent} requests in ${((first.lastReceivedAt - first.firstSentAt) / 1000).toFixed(2)} s)`
    : `burst: no 429 in ${first.sent} back-to-back requests (${first.ok} served)`);
  return first;
}

/** Time kept for the Retry-After rounds and the isolation step after the steps, s (it grows once 429s are seen). */
function reserveAfterSteps(run: ProbeRun, first: Volley): () => number {
  const firstRetryAfter = first.first429 ? parseRetryAfter(first.first429.headers['retry-after'], first.first429.headers.date) : undefined;
  return () => (run.tally.on429.total > 0 ? (firstRetryAfter?.ok ? Math.min(30, 1.6 * firstRetryAfter.seconds) : 2) + 1.5 : 0) + run.isolationS + 1;
}

/**
 * Without fresh keys, the burst once more on warm connections: empty the key, let it refill completely (the
 * first volley's successes, with margin, at the sustained rate), then a volley.
 */
async function burstAgain(run: ProbeRun, first: Volley, rate: number | undefined, reserveS: () => number): Promise<void> {
  const { o, client } = run;
  if (o.keys.mintsFresh || !first.first429 || rate === undefined) return;
  const waitS = (1.5 * first.ok + 2) / rate;
  if (waitS <= Math.min(15, o.maxTimeS - run.elapsedS() - reserveS() - 1)) {
    const key = await o.keys.fresh('burst');
    await throttle(client, key, run.volley);
    await sleep(waitS * 1000);
    const again = await volley(client, key, run.volley);
    run.idleVolleys.push({ ...again, origin: 'refilled' });
    o.log(`burst, again after ${waitS.toFixed(1)} s of refill: ${again.ok} served, then ${again.first429 ? '429' : 'no 429'} (${again.sent} requests)`);
  } else {
    o.log(`burst: no time to let the key refill (${waitS.toFixed(1)} s) for a second measurement; the first one stands`);
  }
}

interface BurstEstimate {
  /** The volleys the estimate comes from. */
  used: IdleVolley[];
  /** Each idle volley's estimate, in order. */
  estimates: Array<number | undefined>;
  /** The estimates of the volleys used. */
  known: number[];
  burst: number | undefined;
}

/** The burst: the median of the idle volleys' estimates. The first ran on cold connections: later ones, when there are any, measure better. */
function estimateBurst(idle: IdleVolley[], rate: number | undefined): BurstEstimate {
  const used = idle.length > 1 ? idle.slice(1) : idle;
  const estimates = idle.map((v) => burstFromVolley(v, rate));
  const known = estimates.filter((x, i): x is number => x !== undefined && used.includes(idle[i]!));
  return { used, estimates, known, burst: known.length ? Math.round(median(known)!) : undefined };
}

// ---------------------------------------------------------------------------------------------------
// 2. Stepping the rate

interface Stepping {
  steps: Step[];
  stop: StopReason;
  /** The highest offered rate served without a 429, when no limit was found. */
  noLimitUpTo: number | undefined;
  /** Steps run again because the probe sent their requests late (its own machine, not the target). */
  lateRepeats: number;
  /** stop 'generator-bound': the rate the probe could not offer, and how late its requests went out. */
  generatorBound?: { offered: number; lateMs: number };
}

/** Open-model steps of rising offered rate (geometric, then bisection) until the limit is bracketed or a bound is reached. */
async function stepTheRate(run: ProbeRun, reserveS: () => number): Promise<Stepping> {
  const { o, client } = run;
  const rules: SteppingRules = { startRate: o.startRate, factor: 2, maxRate: o.maxRate, refineSteps: o.refineSteps, precision: 0.1 };
  const steps: Step[] = [];
  let repeats = 0;
  let lateRepeats = 0;
  for (;;) {
    const next = nextStep(steps, rules);
    if ('done' in next) {
      if (next.done === 'saturated') o.log(`steps: the target or the probe could not keep up at ${fmt(next.at)} req/s (requests unsent or unanswered, no 429): stopping`);
      return { steps, stop: next.done, noLimitUpTo: next.done === 'bracketed' ? undefined : next.upTo, lateRepeats };
    }
    const durationS = Math.max(o.stepTimeS, 5 / next.rate);
    if (run.elapsedS() + durationS + 0.5 + reserveS() > o.maxTimeS) {
      o.log(`steps: stopping, the time budget (${o.maxTimeS} s) is nearly spent`);
      return { steps, stop: 'time budget', noLimitUpTo: undefined, lateRepeats };
    }
    if (client.remaining < next.rate * durationS + o.maxBurst + 100) {
      o.log(`steps: stopping, the request cap (${o.maxRequests}) is nearly reached`);
      return { steps, stop: 'request cap', noLimitUpTo: undefined, lateRepeats };
    }
    const step = await oneStep(run, next, durationS, steps.length + 1);
    // A disturbed step says nothing sound about the limit: run it again, twice at most per probe.
    const disturbed = disturbance(step);
    const sentLate = step.maxLateMs > DISTURBED_LATE_MS;
    if (disturbed && repeats < MAX_REPEATS) {
      repeats++;
      if (sentLate) lateRepeats++;
      o.log(`step ${steps.length + 1}: ${disturbed}; running it again (${repeats} of ${MAX_REPEATS} repeats)`);
      continue;
    }
    // Still sent late, and throttled: its 429s may answer the probe's own catch-up burst, and its served rate is
    // not the service's. A number the probe reports must be the service's: stop, and say the probe could not
    // offer this rate here. (A clean step sent late stands: the service served even the bunched requests.)
    if (sentLate && step.class === 'throttled') {
      o.log(`step ${steps.length + 1}: ${disturbed}; after ${MAX_REPEATS} repeats the probe still cannot offer ${fmt(next.rate)} req/s on this machine: stopping (generator-bound)`);
      return { steps, stop: 'generator-bound', noLimitUpTo: undefined, lateRepeats, generatorBound: { offered: next.rate, lateMs: step.maxLateMs } };
    }
    if (disturbed) o.log(`step ${steps.length + 1}: ${disturbed}; it stands, after ${MAX_REPEATS} repeats: the measurement is unsound on a machine or path this busy`);
    steps.push(step);
  }
}

/** Repeats of disturbed steps per probe: each costs a step's requests (and a fresh key where keys are minted). */
const MAX_REPEATS = 2;

/** One step from a fresh key: its bucket emptied first, so the step measures the refill and not the burst. */
async function oneStep(run: ProbeRun, next: Extract<NextStep, { rate: number }>, durationS: number, index: number): Promise<Step> {
  const { o, client } = run;
  const stepKey = await o.keys.fresh('step');
  // From a fresh key, emptying it is one more burst measurement.
  if (run.tally.on429.total > 0) {
    const drained = await throttle(client, stepKey, run.volley);
    if (o.keys.mintsFresh) run.idleVolleys.push({ ...drained.volley, origin: 'fresh key' });
  }
  const outcome = await openStep(client, stepKey, next.rate, durationS, MAX_IN_FLIGHT);
  const cls = classifyStep(outcome);
  o.log(`step ${index} (${next.phase}): offered ${fmt(next.rate)} req/s for ${outcome.durationS.toFixed(1)} s: ${outcome.accepted2xx} served (${fmt(acceptedRate(outcome))}/s), ${outcome.throttled429} × 429, ${outcome.other} other${outcome.notSent ? `, ${outcome.notSent} not sent` : ''}: ${cls}`);
  return { ...outcome, phase: next.phase, class: cls };
}

// ---------------------------------------------------------------------------------------------------
// 3. Retry-After honesty, 4. isolation

/** Present on every 429 (the tally counts them as they come) and honest: load/probe/retry-after.ts. */
async function retryAfterHonesty(run: ProbeRun): Promise<RetryAfterFindings> {
  const { o } = run;
  if (run.tally.on429.total === 0) return { notTestable: 'no 429 seen' };
  const maxWaitS = Math.max(1, Math.min(30, (o.maxTimeS - run.elapsedS() - run.isolationS - 1) / 2.5));
  return probeRetryAfter(run.client, { volley: run.volley, maxWaitS, nextKey: () => o.keys.fresh('retry-after'), log: o.log });
}

/** Isolation findings, or why there are none. */
type Isolation = { findings: IsolationFindings; note?: undefined } | { findings?: undefined; note: string };

/** While key A is throttled, are a sibling key and another workspace's key still served? (load/probe/isolation.ts) */
async function isolationStep(run: ProbeRun, rate: number | undefined, noLimitUpTo: number | undefined, knownBursts: number[]): Promise<Isolation> {
  const { o } = run;
  if (rate === undefined) {
    return { note: noLimitUpTo !== undefined ? `not testable: no limit found up to ${fmt(noLimitUpTo)} req/s, so key A cannot be throttled` : 'not testable: no sustained limit measured, so key A cannot be throttled' };
  }
  const aKey = await o.keys.fresh('isolation A');
  const sibling = await o.keys.sibling(aKey);
  const other = await o.keys.other();
  const aRate = Math.min(o.maxRate, Math.max(4 * rate, rate + 10));
  const findings = await probeIsolation(run.client, { a: aKey, ...(sibling.key && { sibling: sibling.key }), ...(other.key && { other: other.key }) }, { sibling: sibling.missing, other: other.missing }, {
    rate: aRate,
    durationS: run.isolationS,
    maxInFlight: MAX_IN_FLIGHT,
    volley: run.volley,
    // No more requests than an idle key's burst: each side key stays within its own limit at any spacing.
    sideRequests: Math.max(1, Math.min(5, Math.floor(median(knownBursts) ?? 1))),
    sideSpacingMs: Math.min(100, (run.isolationS * 1000) / 10),
  });
  o.log(`isolation: key A offered ${fmt(aRate)} req/s: ${findings.aStep.accepted2xx} served, ${findings.aStep.throttled429} × 429; sibling answered [${findings.sibling.statuses.join(', ')}], other workspace [${findings.other.statuses.join(', ')}]`);
  return { findings };
}

// ---------------------------------------------------------------------------------------------------
// 5. The result

interface Measured {
  startedAt: string;
  first: Volley;
  stepping: Stepping;
  sustained: SustainedEstimate;
  burst: BurstEstimate;
  retryAfter: RetryAfterFindings;
  isolation: Isolation;
}

/** The limiter's shape, from A's isolation step well over the limit, else the most throttled step. */
function limiterOf(run: ProbeRun, m: Measured): ShapeFinding {
  const { ratePerSecond: rate } = m.sustained;
  const { burst } = m.burst;
  if (run.tally.on429.total === 0) return { shape: 'unknown', why: 'no throttling seen' };
  const overLimit = m.stepping.steps.filter((s) => s.class === 'throttled').sort((x, y) => throttledShare(y) - throttledShare(x))[0];
  const shapeStep = m.isolation.findings?.aStep ?? overLimit;
  return limiterShape(shapeStep && { offered: shapeStep.offered, startMs: shapeStep.startedAt, requests: shapeStep.replies.map((r) => ({ t: r.sentAt, status: r.status })) }, { ...(rate !== undefined && { ratePerSecond: rate }), ...(burst !== undefined && { burst }) });
}

function sustainedSummary(m: Measured): string {
  const { steps, stop, noLimitUpTo } = m.stepping;
  const rate = m.sustained.ratePerSecond;
  const b = bracket(steps);
  return rate !== undefined
    ? `${fmt(rate)} req/s (served rate of the steps offered ${m.sustained.fromSteps.map(fmt).join(', ')} req/s; clean up to ${fmt(b.clean)}, throttled from ${fmt(b.throttled!)})`
    : stop === 'no-limit' ? `no limit found up to ${fmt(noLimitUpTo!)} req/s`
    : stop === 'saturated' ? `no limit found up to ${fmt(noLimitUpTo ?? 0)} req/s (the target or the probe could not go faster)`
    : stop === 'generator-bound' ? `not measured: ${generatorBoundWords(m.stepping)}`
    : `not found: the ${stop} stopped the steps ${steps.length ? `at ${fmt(steps.at(-1)!.offered)} req/s` : 'before the first one'}${lateWords(m.stepping)}`;
}

/** generator-bound, in words: which rate the probe could not offer here, and why. */
export function generatorBoundWords(s: Pick<Stepping, 'generatorBound'>): string {
  const g = s.generatorBound!;
  return `generator-bound: the probe could not offer ${fmt(g.offered)} req/s on this machine (requests went out up to ${Math.round(g.lateMs)} ms late: its event loop stalled), so that step's 429s may be its own burst`;
}

/** Time the steps lost to the probe's own lateness, when any: a time budget spent on repeats is this machine's. */
function lateWords(s: Pick<Stepping, 'lateRepeats'>): string {
  return s.lateRepeats ? ` (${s.lateRepeats} step${s.lateRepeats === 1 ? '' : 's'} run again because the probe sent late on this machine)` : '';
}

function burstSummary(run: ProbeRun, m: Measured): string {
  const { burst, known } = m.burst;
  return burst !== undefined
    ? `${burst} (${known.length === 1 ? 'one volley' : `median of ${known.length} volleys`} from ${run.o.keys.mintsFresh ? 'fresh idle keys' : 'the idle key'}, less the refill while ${known.length === 1 ? 'it' : 'they'} ran)`
    : m.first.first429 ? 'unknown' : `no 429 within ${m.first.sent} back-to-back requests: larger than ${m.first.ok}, or no limit`;
}

/** The findings in words, one line each (the configured limits first, when known). */
function findingLines(run: ProbeRun, m: Measured, words: { sustained: string; burst: string; limiter: ShapeFinding; headers: HeaderFindings }): string[] {
  const { o, tally: { on429 } } = run;
  const { findings: isolation, note: isolationNote } = m.isolation;
  const { limiter } = words;
  const findings = [
    `sustained limit: ${words.sustained}`,
    `burst: ${words.burst}`,
    `limiter: ${limiter.shape.replace('-', ' ')} (${limiter.why})`,
    on429.total ? `429s: ${on429.total}, ${on429.withRetryAfter} with Retry-After, ${on429.missing} without, ${on429.malformed} malformed; JSON-RPC code in the body: ${on429.rpcCodes.length ? on429.rpcCodes.join(', ') : 'none'}` : '429s: none',
    retryAfterLine(m.retryAfter),
    ...headerLines(words.headers),
    isolation
      ? `isolation: throttling key A touched sibling: ${yesNo(isolation.sibling)}; touched other workspace: ${yesNo(isolation.other)}`
      : `isolation: ${isolationNote}`,
  ];
  if (o.configured) findings.unshift(`configured (plan "${o.plan}"): ${fmt(o.configured.ratePerSecond)} req/s, burst ${fmt(o.configured.burst)}`);
  return findings;
}

/** Judges what was measured and puts it in the result's shape (probe.json). */
function assemble(run: ProbeRun, m: Measured): ProbeResult {
  const { o, tally: { on429 } } = run;
  const rate = m.sustained.ratePerSecond;
  const { burst } = m.burst;
  const { findings: isolation, note: isolationNote } = m.isolation;
  const { stop, noLimitUpTo } = m.stepping;
  const limiter = limiterOf(run, m);
  const headers = headerFindings(run.tally.sample2xx?.headers, run.tally.sample429?.headers, { ...(burst !== undefined && { burst }), ...(rate !== undefined && { ratePerSecond: rate }), ...(m.retryAfter.seconds !== undefined && { retryAfterS: m.retryAfter.seconds }) }, o.tolerancePct / 100);
  const verdicts = judge({
    on429, retryAfter: m.retryAfter, isolation, isolationNote, rate, burst, noLimitUpTo, stop, cleanUpTo: bracket(m.stepping.steps).clean,
    ...(stop === 'generator-bound' && { probeBound: generatorBoundWords(m.stepping) }),
    ...((stop === 'time budget' || stop === 'request cap') && { probeBound: `the probe's ${stop} stopped the steps before one was throttled${lateWords(m.stepping)}` }),
    o,
  });
  const sustained = sustainedSummary(m);
  const burstWords = burstSummary(run, m);
  const findings = findingLines(run, m, { sustained, burst: burstWords, limiter, headers });
  const b = bracket(m.stepping.steps);
  return {
    schemaVersion: 1,
    tool: { name: 'probe-rate-limit', version: TOOL_VERSION },
    target: { kind: o.target.kind, baseUrl: o.target.baseUrl, description: o.target.description },
    ...(o.plan !== undefined && { plan: o.plan }),
    ...(o.configured && { configured: o.configured }),
    keys: o.keys.source,
    startedAt: m.startedAt,
    durationS: Number(run.elapsedS().toFixed(2)),
    requests: run.client.sent,
    options: {
      maxTimeS: o.maxTimeS, maxRate: o.maxRate, startRate: o.startRate, stepTimeS: o.stepTimeS, maxRequests: o.maxRequests, maxBurst: o.maxBurst, tolerancePct: o.tolerancePct,
      ...(o.expectRate !== undefined && { expectRate: o.expectRate }), ...(o.expectBurst !== undefined && { expectBurst: o.expectBurst }),
    },
    sustained: {
      ratePerSecond: rate ?? null, fromSteps: m.sustained.fromSteps, bracket: { clean: b.clean, throttled: b.throttled ?? null }, stop,
      ...(noLimitUpTo !== undefined && { noLimitUpTo }), summary: sustained,
    },
    burst: {
      estimate: burst ?? null,
      samples: run.idleVolleys.map((v, i) => ({ origin: v.origin, used: m.burst.used.includes(v), ok: v.ok, throttled: v.throttled, sent: v.sent, durationMs: Number((v.lastReceivedAt - v.firstReceivedAt).toFixed(1)), estimate: m.burst.estimates[i] === undefined ? null : Number(m.burst.estimates[i]!.toFixed(2)) })),
      summary: burstWords,
    },
    limiter,
    retryAfter: { ...m.retryAfter, on429 },
    headers,
    isolation: isolation
      ? {
        a: { offered: isolation.aStep.offered, accepted2xx: isolation.aStep.accepted2xx, throttled429: isolation.aStep.throttled429, durationS: isolation.aStep.durationS, a429DuringSide: isolation.a429DuringSide },
        sibling: side(isolation.sibling),
        other: side(isolation.other),
      }
      : { notTestable: isolationNote!, sibling: { touched: null, statuses: [], note: isolationNote! }, other: { touched: null, statuses: [], note: isolationNote! } },
    steps: m.stepping.steps.map((s, i) => ({
      index: i + 1, phase: s.phase, offered: Number(s.offered.toFixed(3)), accepted2xx: s.accepted2xx, throttled429: s.throttled429, other: s.other, notSent: s.notSent,
      durationS: Number(s.durationS.toFixed(3)), acceptedRate: Number(acceptedRate(s).toFixed(3)), throttledShare: Number(throttledShare(s).toFixed(4)), class: s.class,
      maxLateMs: Math.round(s.maxLateMs),
    })),
    verdicts,
    findings,
    exitCode: verdicts.some((v) => v.status === 'fail') ? 1 : 0,
  };
}

function side(f: IsolationFindings['sibling']): ProbeResult['isolation']['sibling'] {
  return { touched: f.touched ?? null, statuses: f.statuses, ...(f.notTestable && { note: f.notTestable }) };
}
