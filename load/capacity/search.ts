/**
 * The search for one scenario's sustained rate: a low-rate baseline, geometric steps up from the start rate
 * until a step does not hold the SLO, bisection between the last step that held and the first that did not
 * until they are within the tolerance, and a confirmation of the rate found. Each step is judged on its own
 * windows (step-judge.ts); the bound met is said, never guessed: a broken SLO (a capacity), 429s (a limit, never
 * a capacity), the generator (the service holds at least what was measured), the cap, or the time budget.
 */
import { performance } from 'node:perf_hooks';
import type { Bound, ScenarioCapacity, StepPhase, StepRecord } from './capacity-result.js';
import type { Arrivals, Decision, StepMeasurement, StepPlan } from './open-model-driver.js';
import { minSamples, thresholdsOf, type Slo } from './slo.js';
import { judgeStep, type GeneratorBounds, type StepJudgement } from './step-judge.js';
import { stepRecord } from './step-record.js';
import type { Scenario } from '../scenarios.js';

/** What drives the steps: the undici open-model driver, or k6 (k6-driver.ts). */
export interface StepRunner {
  runStep(plan: StepPlan, decide: (m: StepMeasurement, final: boolean) => Decision): Promise<StepMeasurement>;
  single(): Promise<{ ms: number; ok: boolean } | undefined>;
  readonly sentTotal: number;
}

export interface SearchOptions {
  scenario: Scenario;
  slo: Slo;
  runner: StepRunner;
  arrivals: Arrivals;
  seed: number;
  startRate: number;
  maxRate: number;
  /** Bisection ends when (broke - sustained) / broke is at most this. */
  tolerance: number;
  warmupMs: number;
  /** Shortest measured window; a step's window is long enough for the SLO's samples, and extends while undecided up to `maxWindowMs` (at least once). */
  windowMs: number;
  maxWindowMs: number;
  /** performance.now() time by which the search must end. */
  deadline: number;
  bounds: GeneratorBounds;
  /** The generator's ceiling measured on this machine (req/s): no step is planned above it. */
  generatorCeiling?: number;
  /** Times an invalid step is run again before the generator is declared the bound (a stall of a moment is not a ceiling). */
  invalidRetries?: number;
  onStep?: (step: StepRecord) => void;
}

const BASELINE_REQUESTS = 20;
const INVALID_PAUSE_MS = 1000;
/** A server has drained an overloaded step's queue when a lone request's time is back within this of the baseline. */
const DRAINED_FACTOR = 2;
const DRAIN_MAX_MS = 15_000;

export interface SearchResult extends Omit<ScenarioCapacity, 'durationS' | 'requests' | 'overload' | 'soak'> {
  /** Highest rate that held, with its measurement (the overload and soak phases start from it). */
  baselineServiceP50Ms?: number;
}

const round = (v: number) => (v >= 100 ? Math.round(v) : Math.round(v * 100) / 100);
/** Planned rates have three significant digits: what the reports show is what was offered. */
const nice = (v: number) => Number(v.toPrecision(3));
const rate = (v: number) => `${round(v).toLocaleString('en-US')} req/s`;

export async function searchCapacity(o: SearchOptions): Promise<SearchResult> {
  const streaming = o.scenario.requests.some((r) => r.streaming);
  const steps: StepRecord[] = [];
  const held: number[] = [];
  /** The lowest rate that did not hold, and its step. */
  let lowestNot: StepRecord | undefined;
  let lastInvalid: StepRecord | undefined;
  let firstLimited: number | undefined;
  const thresholds = { latency: thresholdsOf(o.slo, 'latency'), ttfp: thresholdsOf(o.slo, 'ttfp'), ttfr: thresholdsOf(o.slo, 'ttfr'), sendLag: [o.bounds.lagBoundMs] };
  const needed = minSamples(o.slo);

  // Baseline: lone requests, one after another: the service time with no queue.
  const lone: number[] = [];
  for (let i = 0; i < BASELINE_REQUESTS && performance.now() < o.deadline; i++) {
    const r = await o.runner.single();
    if (r?.ok) lone.push(r.ms);
  }
  lone.sort((a, b) => a - b);
  const baseline = lone.length > 0 ? { rate: 0, serviceP50Ms: round(lone[Math.floor(lone.length / 2)]!), serviceP99Ms: round(lone.at(-1)!) } : undefined;

  const drain = async () => {
    if (!baseline) return;
    const until = Math.min(o.deadline, performance.now() + DRAIN_MAX_MS);
    while (performance.now() < until) {
      const r = await o.runner.single();
      if (r?.ok && r.ms <= baseline.serviceP50Ms * DRAINED_FACTOR + 5) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  /** Runs a step at `r` (again, while the generator could not offer it, up to the retries). */
  const step = async (r: number, phase: StepPhase): Promise<StepRecord | undefined> => {
    // Long enough for the samples a pass needs (a p99 needs 384: 38 s at 10 req/s), however short --window;
    // extensions while undecided up to --max-window, and at least one.
    const windowMs = Math.max(o.windowMs, Math.ceil((needed * 1.1 * 1000) / r));
    const maxWindows = Math.max(2, Math.floor(o.maxWindowMs / windowMs));
    for (let attempt = 0; attempt <= (o.invalidRetries ?? 2); attempt++) {
      if (performance.now() + o.warmupMs + windowMs > o.deadline) return undefined;
      const plan: StepPlan = { rate: r, arrivals: o.arrivals, seed: o.seed + steps.length, warmupMs: o.warmupMs, windowMs, maxWindows, thresholds };
      let windows = 0;
      let judgement: StepJudgement | undefined;
      const m = await o.runner.runStep(plan, (measured, final) => {
        windows = Math.round(measured.windowMs / windowMs);
        judgement = judgeStep(measured, o.slo, o.bounds, final, windows < maxWindows && performance.now() + windowMs < o.deadline);
        return judgement.decision;
      });
      // runStep returns only on a decision its last judgement made: that is the step's verdict.
      const record = stepRecord(steps.length + 1, phase, m, judgement!, streaming);
      steps.push(record);
      o.onStep?.(record);
      if (record.verdict === 'rate-limited') firstLimited = Math.min(firstLimited ?? Infinity, r);
      if (record.verdict !== 'pass') await drain();
      if (record.verdict !== 'invalid') return record;
      lastInvalid = record;
      // A busy moment of this machine passes: a pause before the step runs again.
      await new Promise((resolve) => setTimeout(resolve, INVALID_PAUSE_MS));
    }
    return lastInvalid;
  };

  const ceiling = o.generatorCeiling !== undefined ? Math.min(o.maxRate, o.generatorCeiling) : o.maxRate;
  let next = Math.min(o.startRate, ceiling);
  let bound: Bound | undefined;
  let stopNote: string | undefined;

  // Geometric: up while steps hold; down from the start rate when the first does not.
  for (;;) {
    const s = await step(next, 'geometric');
    if (!s) { bound = 'time'; break; }
    if (s.verdict === 'invalid') { bound = 'generator'; break; }
    if (s.verdict === 'pass') {
      held.push(next);
      if (lowestNot) break;
      if (next >= ceiling) { bound = ceiling < o.maxRate ? 'generator' : 'cap'; break; }
      next = Math.min(next * 2, ceiling);
      continue;
    }
    const previous = lowestNot;
    lowestNot = s;
    if (held.length > 0) break;
    // Half the load and no better: the SLO breaks whatever the rate (the service's latency, not its load).
    const unmoved = previous && s.verdict === 'fail' ? loadIndependent(previous, s) : undefined;
    if (unmoved) { stopNote = unmoved; break; }
    next = nice(next / 2);
    if (next < 0.5) { stopNote = 'no step held the SLO down to 0.5 req/s'; break; }
  }

  // Bisect between the highest that held and the lowest that did not; then confirm both ends once each: a
  // break may be a moment's disturbance (it then holds on a second look, and the bisection goes on above it),
  // and a hold may be luck (it then breaks, and the bisection goes on below it).
  const broken = new Map<number, StepRecord>();
  if (lowestNot) broken.set(lowestNot.offered, lowestNot);
  const lowestBroken = () => [...broken.values()].reduce<StepRecord | undefined>((a, b) => (!a || b.offered < a.offered ? b : a), undefined);
  const confirmedBreaks = new Set<number>();
  const confirmedHolds = new Set<number>();
  let confirmations = 0;
  while (!bound && held.length > 0) {
    if (broken.size === 0) {
      // The only break held on its second look: up again from the highest hold.
      const top = Math.max(...held);
      if (top >= ceiling) { bound = ceiling < o.maxRate ? 'generator' : 'cap'; break; }
      const up = Math.min(nice(top * 2), ceiling);
      const u = await step(up, 'geometric');
      if (!u) { bound = 'time'; break; }
      if (u.verdict === 'invalid') { bound = 'generator'; break; }
      if (u.verdict === 'pass') held.push(up);
      else broken.set(up, u);
      continue;
    }
    const hi = lowestBroken()!.offered;
    const below = held.filter((h) => h < hi);
    if (below.length === 0) {
      // What held below the break did not hold on its second look: one more step, halfway down.
      const lower = nice(hi / 2);
      const d = await step(lower, 'bisect');
      if (!d) { bound = 'time'; break; }
      if (d.verdict === 'invalid') { bound = 'generator'; break; }
      if (d.verdict === 'pass') { held.push(lower); continue; }
      broken.set(lower, d);
      stopNote = 'the lower rates stopped holding the SLO on a second look';
      break;
    }
    const lo = Math.max(...below);
    if ((hi - lo) / hi > o.tolerance) {
      const mid = nice((lo + hi) / 2);
      if (mid <= lo || mid >= hi) break;
      const s = await step(mid, 'bisect');
      if (!s) { bound = 'time'; break; }
      if (s.verdict === 'invalid') { bound = 'generator'; break; }
      if (s.verdict === 'pass') held.push(mid);
      else broken.set(mid, s);
      continue;
    }
    if (confirmations >= 4) break;
    if (!confirmedBreaks.has(hi)) {
      confirmedBreaks.add(hi);
      confirmations++;
      const c = await step(hi, 'confirm');
      if (!c) { bound = 'time'; break; }
      if (c.verdict === 'invalid') { bound = 'generator'; break; }
      if (c.verdict === 'pass') {
        broken.delete(hi);
        held.push(hi);
      } else broken.set(hi, c);
      continue;
    }
    if (!confirmedHolds.has(lo)) {
      confirmedHolds.add(lo);
      confirmations++;
      const c = await step(lo, 'confirm');
      if (!c) { bound = 'time'; break; }
      if (c.verdict === 'invalid') { bound = 'generator'; break; }
      if (c.verdict !== 'pass') {
        held.splice(held.indexOf(lo), 1);
        broken.set(lo, c);
      }
      continue;
    }
    break;
  }
  lowestNot = lowestBroken() ?? (held.length === 0 ? lowestNot : undefined);

  const highestHeld = held.length > 0 ? Math.max(...held.filter((h) => !lowestNot || h < lowestNot.offered)) : null;
  const limited = lowestNot?.verdict === 'rate-limited';
  if (!bound) bound = lowestNot ? (limited ? 'rate-limit' : 'slo') : 'cap';
  // 429s are never capacity, and what held below them is not one either: a token bucket admits its burst on top
  // of its rate within any window, so a rate a little above the limit holds for a while. It is reported as
  // `rateLimit.heldUpTo`, never as `sustained`.
  const sustained = bound === 'rate-limit' ? null : highestHeld;
  // A search cut short by the generator or the time after it bracketed an SLO break still reports that bracket.
  const broke = lowestNot && !limited ? lowestNot.offered : null;
  const summary = summarize(bound, bound === 'rate-limit' ? highestHeld : sustained, broke, lowestNot, lastInvalid, firstLimited, o, stopNote);
  return {
    scenario: o.scenario.name,
    streaming,
    slo: o.slo.text,
    sustained: sustained === null ? null : round(sustained),
    broke: broke === null ? null : round(broke),
    bound,
    summary,
    ...(baseline && { baseline }),
    ...(firstLimited !== undefined && {
      rateLimit: {
        firstAt: round(firstLimited),
        ...(bound === 'rate-limit' && highestHeld !== null && { heldUpTo: round(highestHeld) }),
        hint: 'the deployment throttled this key: spread the load over more keys (one per agent), or measure the limit itself (its rate and burst) with the probe command',
      },
    }),
    steps,
    ...(baseline && { baselineServiceP50Ms: baseline.serviceP50Ms }),
  };
}

/** Why two failing steps show a latency that does not come from load, or undefined: the same term broke by as much at half the rate. */
function loadIndependent(higher: StepRecord, lower: StepRecord): string | undefined {
  const a = higher.terms.find((t) => t.verdict === 'fail');
  const b = lower.terms.find((t) => t.term === a?.term);
  if (!a || !b || b.verdict !== 'fail' || b.measured < a.measured * 0.9) return undefined;
  const unit = a.term.startsWith('errors') ? '' : ' ms';
  return `the SLO breaks whatever the rate: ${a.term} measured ${round(a.measured)}${unit} at ${rate(higher.offered)} and ${round(b.measured)}${unit} at ${rate(lower.offered)} (the service's latency, not its load)`;
}

function summarize(bound: Bound, sustained: number | null, broke: number | null, lowestNot: StepRecord | undefined, invalid: StepRecord | undefined, firstLimited: number | undefined, o: SearchOptions, note?: string): string {
  const held = sustained === null ? 'no step held the SLO' : `holds ${rate(sustained)}`;
  switch (bound) {
    case 'slo':
      return `${held}; ${lowestNot ? `${rate(lowestNot.offered)} broke it: ${lowestNot.reason}` : ''}${note ? ` (${note})` : ''}`;
    case 'rate-limit':
      return `no capacity: 429s from ${rate(firstLimited ?? lowestNot?.offered ?? 0)}, a rate limit${sustained === null ? '' : ` (steps up to ${rate(sustained)} drew none in their windows, which a bucket's burst may stretch)`}`;
    case 'generator':
      return `at least ${sustained === null ? '0 req/s' : rate(sustained)}: the generator could not offer more on this machine (${invalid?.reason ?? `its ceiling against a no-op endpoint is ${rate(o.generatorCeiling ?? 0)}`})${broke !== null ? `; ${rate(broke)} had broken the SLO` : ''}`;
    case 'cap':
      return `${held} up to the cap (--max-rate ${rate(o.maxRate)}): the service holds at least that`;
    case 'time':
      return `the time budget ran out before the boundary was found; ${held}${broke !== null ? `, ${rate(broke)} broke it` : ''}`;
  }
}
