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
import { ProbeClient, is2xx, isOk, isThrottled, type ProbeReply } from './client.js';
import { acceptedRate, expectGate, fmt, limiterShape, median, sustainedFromSteps, throttledShare, verdict, type ShapeFinding, type Verdict } from './analysis.js';
import { headerFindings, parseRetryAfter, type HeaderFindings } from '../../src/wire/rate-limit-headers.js';
import { probeIsolation, type IsolationFindings } from './isolation.js';
import type { KeyRing } from './keys.js';
import { probeRetryAfter, type RetryAfterFindings } from './retry-after.js';
import { bracket, classifyStep, nextStep, openStep, type StepClass, type StepOutcome, type SteppingRules } from './stepper.js';
import type { LoadTarget } from '../target.js';

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
}

export interface StepRow {
  index: number;
  phase: 'geometric' | 'bisect';
  offered: number;
  accepted2xx: number;
  throttled429: number;
  other: number;
  notSent: number;
  durationS: number;
  acceptedRate: number;
  throttledShare: number;
  class: StepClass;
}

export type StopReason = 'bracketed' | 'no-limit' | 'saturated' | 'time budget' | 'request cap';

export interface ProbeResult {
  schemaVersion: 1;
  tool: { name: 'probe-rate-limit'; version: string };
  target: { kind: string; baseUrl: string; description: string };
  plan?: string;
  configured?: { ratePerSecond: number; burst: number };
  keys: string;
  startedAt: string;
  durationS: number;
  requests: number;
  options: { maxTimeS: number; maxRate: number; startRate: number; stepTimeS: number; maxRequests: number; maxBurst: number; tolerancePct: number; expectRate?: number; expectBurst?: number };
  sustained: { ratePerSecond: number | null; fromSteps: number[]; bracket: { clean: number; throttled: number | null }; stop: StopReason; noLimitUpTo?: number; summary: string };
  burst: { estimate: number | null; samples: Array<{ origin: 'first' | 'fresh key' | 'refilled'; used: boolean; ok: number; throttled: number; sent: number; durationMs: number; estimate: number | null }>; summary: string };
  limiter: ShapeFinding;
  retryAfter: RetryAfterFindings & { on429: { total: number; withRetryAfter: number; missing: number; malformed: number; rpcCodes: number[] } };
  headers: HeaderFindings;
  isolation: {
    notTestable?: string;
    a?: { offered: number; accepted2xx: number; throttled429: number; durationS: number; a429DuringSide: number };
    sibling: { touched: boolean | null; statuses: number[]; note?: string };
    other: { touched: boolean | null; statuses: number[]; note?: string };
  };
  steps: StepRow[];
  verdicts: Verdict[];
  findings: string[];
  exitCode: 0 | 1;
}

const TOOL_VERSION = '1';

export async function runProbe(o: ProbeOptions): Promise<ProbeResult> {
  const startedAt = new Date().toISOString();
  const hardStop = new AbortController();
  // Requests still in flight well after the budget are cut off.
  const hardTimer = setTimeout(() => hardStop.abort(), (o.maxTimeS + 15) * 1000);
  hardTimer.unref();

  // Every 429 of the probe is checked for Retry-After; one 2xx and one 429 keep their fields for the report.
  const on429 = { total: 0, withRetryAfter: 0, missing: 0, malformed: 0, rpcCodes: [] as number[] };
  let sample2xx: ProbeReply | undefined;
  let sample429: ProbeReply | undefined;
  const onReply = (r: ProbeReply) => {
    if (isOk(r)) sample2xx ??= r;
    if (!isThrottled(r)) return;
    sample429 ??= r;
    on429.total++;
    const ra = r.headers['retry-after'];
    if (ra === undefined) on429.missing++;
    else if (parseRetryAfter(ra, r.headers.date).ok) on429.withRetryAfter++;
    else on429.malformed++;
    if (r.rpcCode !== undefined && !on429.rpcCodes.includes(r.rpcCode)) on429.rpcCodes.push(r.rpcCode);
  };
  const client = new ProbeClient({ baseUrl: o.target.baseUrl, connections: MAX_IN_FLIGHT, maxRequests: o.maxRequests, timeoutMs: 10_000, signal: hardStop.signal, onReply });
  const t0 = client.now();
  const elapsedS = () => (client.now() - t0) / 1000;
  const volleyOptions: VolleyOptions & { maxSingles: number } = {
    concurrency: VOLLEY_CONCURRENCY,
    maxRequests: o.maxBurst,
    maxMs: Math.max(2000, (o.maxTimeS * 1000) / 10),
    maxSingles: 2 * VOLLEY_CONCURRENCY + 20,
  };

  try {
    // 1. Burst, from an idle key. Also the reachability check: no traffic goes on against a dead target.
    const burstKey = await o.keys.fresh('burst');
    const first = await volley(client, burstKey, volleyOptions);
    if (first.sent > 0 && first.replies.every((r) => r.status === 0)) throw new ProbeUnreachableError(`${o.target.description} did not answer: ${first.replies[0]!.error ?? 'no reply'}`);
    const refused = first.replies.find((r) => r.status === 401 || r.status === 403);
    if (refused && first.ok === 0) throw new ProbeUnreachableError(`the key was refused (HTTP ${refused.status}): give a live key (--api-key or MCP_API_KEY)`);
    // Volleys from idle keys: the first (on cold connections and, maybe, a cold server) and later ones.
    const idleVolleys: Array<Volley & { origin: 'first' | 'fresh key' | 'refilled' }> = [{ ...first, origin: 'first' }];
    o.log(first.first429
      ? `burst: ${first.ok} served, then 429 (${first.sent} requests in ${((first.lastReceivedAt - first.firstSentAt) / 1000).toFixed(2)} s)`
      : `burst: no 429 in ${first.sent} back-to-back requests (${first.ok} served)`);

    // Time kept for the Retry-After rounds and the isolation step after the steps.
    const firstRetryAfter = first.first429 ? parseRetryAfter(first.first429.headers['retry-after'], first.first429.headers.date) : undefined;
    const isolationS = Math.max(1, o.stepTimeS);
    const reserveS = () => (on429.total > 0 ? (firstRetryAfter?.ok ? Math.min(30, 1.6 * firstRetryAfter.seconds) : 2) + 1.5 : 0) + isolationS + 1;

    // 2. Steps.
    const rules: SteppingRules = { startRate: o.startRate, factor: 2, maxRate: o.maxRate, refineSteps: o.refineSteps, precision: 0.1 };
    const steps: Array<StepOutcome & { phase: 'geometric' | 'bisect'; class: StepClass }> = [];
    let stop: StopReason | undefined;
    let noLimitUpTo: number | undefined;
    for (;;) {
      const next = nextStep(steps, rules);
      if ('done' in next) {
        stop = next.done;
        if (next.done === 'no-limit') noLimitUpTo = next.upTo;
        if (next.done === 'saturated') {
          noLimitUpTo = next.upTo;
          o.log(`steps: the target or the probe could not keep up at ${fmt(next.at)} req/s (requests unsent or unanswered, no 429): stopping`);
        }
        break;
      }
      const durationS = Math.max(o.stepTimeS, 5 / next.rate);
      if (elapsedS() + durationS + 0.5 + reserveS() > o.maxTimeS) {
        stop = 'time budget';
        o.log(`steps: stopping, the time budget (${o.maxTimeS} s) is nearly spent`);
        break;
      }
      if (client.remaining < next.rate * durationS + o.maxBurst + 100) {
        stop = 'request cap';
        o.log(`steps: stopping, the request cap (${o.maxRequests}) is nearly reached`);
        break;
      }
      const stepKey = await o.keys.fresh('step');
      // Empty the bucket first, so the step measures the refill and not the burst. From a fresh key this
      // is one more burst measurement.
      if (on429.total > 0) {
        const drained = await throttle(client, stepKey, volleyOptions);
        if (o.keys.mintsFresh) idleVolleys.push({ ...drained.volley, origin: 'fresh key' });
      }
      const outcome = await openStep(client, stepKey, next.rate, durationS, MAX_IN_FLIGHT);
      const cls = classifyStep(outcome);
      steps.push({ ...outcome, phase: next.phase, class: cls });
      o.log(`step ${steps.length} (${next.phase}): offered ${fmt(next.rate)} req/s for ${outcome.durationS.toFixed(1)} s: ${outcome.accepted2xx} served (${fmt(acceptedRate(outcome))}/s), ${outcome.throttled429} × 429, ${outcome.other} other${outcome.notSent ? `, ${outcome.notSent} not sent` : ''}: ${cls}`);
    }

    const sustained = sustainedFromSteps(steps);
    const rate = sustained.ratePerSecond;
    const b = bracket(steps);

    // Without fresh keys, measure the burst once more on warm connections: empty the key, let it refill
    // completely (the first volley's successes, with margin, at the sustained rate), then a volley.
    if (!o.keys.mintsFresh && first.first429 && rate !== undefined) {
      const waitS = (1.5 * first.ok + 2) / rate;
      if (waitS <= Math.min(15, o.maxTimeS - elapsedS() - reserveS() - 1)) {
        const key = await o.keys.fresh('burst');
        await throttle(client, key, volleyOptions);
        await sleep(waitS * 1000);
        const again = await volley(client, key, volleyOptions);
        idleVolleys.push({ ...again, origin: 'refilled' });
        o.log(`burst, again after ${waitS.toFixed(1)} s of refill: ${again.ok} served, then ${again.first429 ? '429' : 'no 429'} (${again.sent} requests)`);
      } else {
        o.log(`burst: no time to let the key refill (${waitS.toFixed(1)} s) for a second measurement; the first one stands`);
      }
    }
    // The first volley ran on cold connections: later ones, when there are any, measure better.
    const burstVolleys = idleVolleys.length > 1 ? idleVolleys.slice(1) : idleVolleys;
    const burstEstimates = idleVolleys.map((v) => burstFromVolley(v, rate));
    const known = burstEstimates.filter((x, i): x is number => x !== undefined && burstVolleys.includes(idleVolleys[i]!));
    const burst = known.length ? Math.round(median(known)!) : undefined;

    // 3. Retry-After.
    let retryAfter: RetryAfterFindings;
    if (on429.total === 0) {
      retryAfter = { notTestable: 'no 429 seen' };
    } else {
      const maxWaitS = Math.max(1, Math.min(30, (o.maxTimeS - elapsedS() - isolationS - 1) / 2.5));
      retryAfter = await probeRetryAfter(client, { volley: volleyOptions, maxWaitS, nextKey: () => o.keys.fresh('retry-after'), log: o.log });
    }

    // 4. Isolation (and the limiter's shape, from A's step well over the limit).
    let isolation: IsolationFindings | undefined;
    let isolationNote: string | undefined;
    if (rate === undefined) {
      isolationNote = noLimitUpTo !== undefined ? `not testable: no limit found up to ${fmt(noLimitUpTo)} req/s, so key A cannot be throttled` : 'not testable: no sustained limit measured, so key A cannot be throttled';
    } else {
      const aKey = await o.keys.fresh('isolation A');
      const sibling = await o.keys.sibling(aKey);
      const other = await o.keys.other();
      const aRate = Math.min(o.maxRate, Math.max(4 * rate, rate + 10));
      isolation = await probeIsolation(client, { a: aKey, ...(sibling.key && { sibling: sibling.key }), ...(other.key && { other: other.key }) }, { sibling: sibling.missing, other: other.missing }, {
        rate: aRate,
        durationS: isolationS,
        maxInFlight: MAX_IN_FLIGHT,
        volley: volleyOptions,
        // No more requests than an idle key's burst: each side key stays within its own limit at any spacing.
        sideRequests: Math.max(1, Math.min(5, Math.floor(median(known) ?? 1))),
        sideSpacingMs: Math.min(100, (isolationS * 1000) / 10),
      });
      o.log(`isolation: key A offered ${fmt(aRate)} req/s: ${isolation.aStep.accepted2xx} served, ${isolation.aStep.throttled429} × 429; sibling answered [${isolation.sibling.statuses.join(', ')}], other workspace [${isolation.other.statuses.join(', ')}]`);
    }

    // 5. Findings.
    const overLimit = steps.filter((s) => s.class === 'throttled').sort((x, y) => throttledShare(y) - throttledShare(x))[0];
    const shapeStep = isolation?.aStep ?? overLimit;
    const limiter: ShapeFinding = on429.total === 0
      ? { shape: 'unknown', why: 'no throttling seen' }
      : limiterShape(shapeStep && { offered: shapeStep.offered, startMs: shapeStep.startedAt, requests: shapeStep.replies.map((r) => ({ t: r.sentAt, status: r.status })) }, { ...(rate !== undefined && { ratePerSecond: rate }), ...(burst !== undefined && { burst }) });
    const headers = headerFindings(sample2xx?.headers, sample429?.headers, { ...(burst !== undefined && { burst }), ...(rate !== undefined && { ratePerSecond: rate }), ...(retryAfter.seconds !== undefined && { retryAfterS: retryAfter.seconds }) }, o.tolerancePct / 100);

    const verdicts = judge({ on429, retryAfter, isolation, isolationNote, rate, burst, noLimitUpTo, stop, o });
    const exitCode = verdicts.some((v) => v.status === 'fail') ? 1 : 0;

    const sustainedSummary = rate !== undefined
      ? `${fmt(rate)} req/s (served rate of the steps offered ${sustained.fromSteps.map(fmt).join(', ')} req/s; clean up to ${fmt(b.clean)}, throttled from ${fmt(b.throttled!)})`
      : stop === 'no-limit' ? `no limit found up to ${fmt(noLimitUpTo!)} req/s`
      : stop === 'saturated' ? `no limit found up to ${fmt(noLimitUpTo ?? 0)} req/s (the target or the probe could not go faster)`
      : `not found: the ${stop} stopped the steps ${steps.length ? `at ${fmt(steps.at(-1)!.offered)} req/s` : 'before the first one'}`;
    const burstSummary = burst !== undefined
      ? `${burst} (${known.length === 1 ? 'one volley' : `median of ${known.length} volleys`} from ${o.keys.mintsFresh ? 'fresh idle keys' : 'the idle key'}, less the refill while ${known.length === 1 ? 'it' : 'they'} ran)`
      : first.first429 ? 'unknown' : `no 429 within ${first.sent} back-to-back requests: larger than ${first.ok}, or no limit`;

    const findings = [
      `sustained limit: ${sustainedSummary}`,
      `burst: ${burstSummary}`,
      `limiter: ${limiter.shape.replace('-', ' ')} (${limiter.why})`,
      on429.total ? `429s: ${on429.total}, ${on429.withRetryAfter} with Retry-After, ${on429.missing} without, ${on429.malformed} malformed; JSON-RPC code in the body: ${on429.rpcCodes.length ? on429.rpcCodes.join(', ') : 'none'}` : '429s: none',
      retryAfterLine(retryAfter),
      ...headerLines(headers),
      isolation
        ? `isolation: throttling key A touched sibling: ${yesNo(isolation.sibling)}; touched other workspace: ${yesNo(isolation.other)}`
        : `isolation: ${isolationNote}`,
    ];
    if (o.configured) findings.unshift(`configured (plan "${o.plan}"): ${fmt(o.configured.ratePerSecond)} req/s, burst ${fmt(o.configured.burst)}`);

    return {
      schemaVersion: 1,
      tool: { name: 'probe-rate-limit', version: TOOL_VERSION },
      target: { kind: o.target.kind, baseUrl: o.target.baseUrl, description: o.target.description },
      ...(o.plan !== undefined && { plan: o.plan }),
      ...(o.configured && { configured: o.configured }),
      keys: o.keys.source,
      startedAt,
      durationS: Number(elapsedS().toFixed(2)),
      requests: client.sent,
      options: {
        maxTimeS: o.maxTimeS, maxRate: o.maxRate, startRate: o.startRate, stepTimeS: o.stepTimeS, maxRequests: o.maxRequests, maxBurst: o.maxBurst, tolerancePct: o.tolerancePct,
        ...(o.expectRate !== undefined && { expectRate: o.expectRate }), ...(o.expectBurst !== undefined && { expectBurst: o.expectBurst }),
      },
      sustained: {
        ratePerSecond: rate ?? null, fromSteps: sustained.fromSteps, bracket: { clean: b.clean, throttled: b.throttled ?? null }, stop: stop!,
        ...(noLimitUpTo !== undefined && { noLimitUpTo }), summary: sustainedSummary,
      },
      burst: {
        estimate: burst ?? null,
        samples: idleVolleys.map((v, i) => ({ origin: v.origin, used: burstVolleys.includes(v), ok: v.ok, throttled: v.throttled, sent: v.sent, durationMs: Number((v.lastReceivedAt - v.firstReceivedAt).toFixed(1)), estimate: burstEstimates[i] === undefined ? null : Number(burstEstimates[i]!.toFixed(2)) })),
        summary: burstSummary,
      },
      limiter,
      retryAfter: { ...retryAfter, on429 },
      headers,
      isolation: isolation
        ? {
          a: { offered: isolation.aStep.offered, accepted2xx: isolation.aStep.accepted2xx, throttled429: isolation.aStep.throttled429, durationS: isolation.aStep.durationS, a429DuringSide: isolation.a429DuringSide },
          sibling: side(isolation.sibling),
          other: side(isolation.other),
        }
        : { notTestable: isolationNote!, sibling: { touched: null, statuses: [], note: isolationNote! }, other: { touched: null, statuses: [], note: isolationNote! } },
      steps: steps.map((s, i) => ({
        index: i + 1, phase: s.phase, offered: Number(s.offered.toFixed(3)), accepted2xx: s.accepted2xx, throttled429: s.throttled429, other: s.other, notSent: s.notSent,
        durationS: Number(s.durationS.toFixed(3)), acceptedRate: Number(acceptedRate(s).toFixed(3)), throttledShare: Number(throttledShare(s).toFixed(4)), class: s.class,
      })),
      verdicts,
      findings,
      exitCode,
    };
  } finally {
    clearTimeout(hardTimer);
    await client.close();
  }
}

function side(f: IsolationFindings['sibling']): ProbeResult['isolation']['sibling'] {
  return { touched: f.touched ?? null, statuses: f.statuses, ...(f.notTestable && { note: f.notTestable }) };
}

function yesNo(f: IsolationFindings['sibling']): string {
  if (f.touched === undefined) return f.notTestable ?? 'not testable';
  return f.touched ? `yes (${f.statuses.filter((s) => s === 429).length} of ${f.statuses.length} requests refused)` : `no (${f.statuses.length} of ${f.statuses.length} served)`;
}

function retryAfterLine(r: RetryAfterFindings): string {
  if (r.notTestable && !r.atWait) return `Retry-After: ${r.value !== undefined ? `${JSON.stringify(r.value)}: ` : ''}${r.notTestable}`;
  const parts = [`Retry-After: ${JSON.stringify(r.value)} (${r.form})`];
  if (r.atWait) parts.push(`retry after ${r.atWait.waitedS.toFixed(2)} s ${is2xx(r.atWait.status) ? 'served' : `answered ${r.atWait.status || 'nothing'}`}${r.servedAfterS !== undefined ? ` (first served ${r.servedAfterS.toFixed(2)} s after the 429)` : r.atWait.status === 429 ? ' (not served within the search)' : ''}`);
  if (r.early) parts.push(`retry at half the wait (${r.early.waitedS.toFixed(2)} s) ${r.overstates ? 'served: Retry-After overstates the wait' : `answered ${r.early.status || 'nothing'}: the wait is needed`}`);
  return parts.join('; ');
}

function headerLines(h: HeaderFindings): string[] {
  const lines: string[] = [];
  if (h.policy) lines.push(`RateLimit-Policy: ${h.policy.ok ? h.policy.value.map((p) => `"${p.name}" q=${p.quota}${p.windowS !== undefined ? ` w=${p.windowS}` : ''}${p.unit !== 'requests' ? ` qu=${p.unit}` : ''}${p.partitionKeyBytes !== undefined ? ` pk=<${p.partitionKeyBytes} bytes>` : ''}`).join(', ') : `unparseable (${h.policy.why})`}`);
  for (const [label, s] of [['RateLimit on a 2xx', h.state2xx], ['RateLimit on a 429', h.state429]] as const) {
    if (s) lines.push(`${label}: ${s.ok ? s.value.map((x) => `"${x.name}" r=${x.remaining}${x.resetS !== undefined ? ` t=${x.resetS}` : ''}`).join(', ') : `unparseable (${s.why})`}`);
  }
  for (const l of h.legacy) lines.push(`${l.family}: limit ${l.limit ?? '-'}, remaining ${l.remaining ?? '-'}, reset ${l.reset ?? '-'}`);
  for (const a of h.agreement) lines.push(`  ${a.what}: ${fmt(a.header)} vs ${fmt(a.measured)}: ${a.agrees ? 'agrees' : 'differs'}`);
  if (lines.length === 0) lines.push('RateLimit header fields: none sent');
  return lines;
}

function judge(x: {
  on429: ProbeResult['retryAfter']['on429'];
  retryAfter: RetryAfterFindings;
  isolation: IsolationFindings | undefined;
  isolationNote: string | undefined;
  rate: number | undefined;
  burst: number | undefined;
  noLimitUpTo: number | undefined;
  stop: StopReason | undefined;
  o: ProbeOptions;
}): Verdict[] {
  const out: Verdict[] = [];
  const { on429, retryAfter: r } = x;

  // RFC 6585 §4: the 429 "MAY include a Retry-After header indicating how long to wait before making a new
  // request"; a probe for release engineers holds the service to it on every 429.
  if (on429.total === 0) out.push(verdict('retry-after-present', 'not-testable', 'no 429 seen'));
  else if (on429.missing || on429.malformed) out.push(verdict('retry-after-present', 'fail', `${on429.missing + on429.malformed} of ${on429.total} 429s carried no usable Retry-After (${on429.missing} without, ${on429.malformed} malformed)`));
  else out.push(verdict('retry-after-present', 'pass', `all ${on429.total} 429s carried Retry-After (e.g. ${JSON.stringify(r.value ?? '')})`));

  // RFC 9110 §10.2.3: Retry-After indicates "how long the user agent ought to wait before making a
  // follow-up request": after that wait the follow-up must be served.
  if (!r.atWait) out.push(verdict('retry-after-honest', 'not-testable', r.notTestable ?? 'not tested'));
  else if (is2xx(r.atWait.status)) {
    out.push(verdict('retry-after-honest', 'pass', `a retry ${r.atWait.waitedS.toFixed(2)} s after a 429 with Retry-After: ${r.atWait.value} was served${r.overstates ? `; observation: Retry-After overstates the wait (a retry after ${r.early!.waitedS.toFixed(2)} s was served too)` : r.early ? `; a retry after ${r.early.waitedS.toFixed(2)} s was refused (the wait is needed)` : ''}`));
  } else if (r.atWait.status === 429) {
    out.push(verdict('retry-after-honest', 'fail', `retry after Retry-After was refused: waited ${r.atWait.waitedS.toFixed(2)} s (Retry-After: ${r.atWait.value}), got 429${r.servedAfterS !== undefined ? `; first served ${r.servedAfterS.toFixed(2)} s after the 429` : ''}`));
  } else {
    out.push(verdict('retry-after-honest', 'not-testable', `the retry after Retry-After was answered ${r.atWait.status || 'with no reply'}`));
  }

  for (const [id, which] of [['isolation-sibling', 'sibling'], ['isolation-other-workspace', 'other']] as const) {
    const f = x.isolation?.[which];
    const label = which === 'sibling' ? 'sibling' : 'other workspace';
    if (!f) out.push(verdict(id, 'not-testable', x.isolationNote ?? 'not tested'));
    else if (f.touched === undefined) out.push(verdict(id, 'not-testable', f.notTestable ?? 'not tested'));
    else out.push(verdict(id, f.touched ? 'fail' : 'pass', `throttling key A touched ${label}: ${yesNo(f)}, while key A got ${x.isolation!.a429DuringSide} × 429`));
  }

  const missing = x.noLimitUpTo !== undefined ? `no limit found up to ${fmt(x.noLimitUpTo)} req/s` : `no sustained limit measured (${x.stop})`;
  out.push(expectGate('expect-rate', x.o.expectRate, x.rate, x.o.tolerancePct, 'req/s', missing));
  out.push(expectGate('expect-burst', x.o.expectBurst, x.burst, x.o.tolerancePct, 'requests', x.rate === undefined ? missing : 'no 429 from an idle key'));
  return out;
}
