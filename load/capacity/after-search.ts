/**
 * What a release engineer asks once the sustained rate is known: past it, does goodput hold or collapse
 * (a step at 1.5x), and how long after the overload does latency come back (then 0.5x, in time bins from the
 * planned send); and, on request, a soak at a fraction of it that flags drift in p99 and the server's memory.
 */
import type { Overload, Soak } from './capacity-result.js';
import type { StepPlan } from './open-model-driver.js';
import type { StepRunner } from './search.js';
import type { Arrivals } from './open-model-driver.js';

const OVERLOAD_FACTOR = 1.5;
const RECOVERY_FACTOR = 0.5;
/** Goodput at 1.5x that is at least this share of the sustained rate "holds"; less is a collapse. */
const HOLDS_SHARE = 0.9;
const RECOVERY_WINDOW_MS = 10_000;

const r1 = (v: number) => Math.round(v * 10) / 10;
const r3 = (v: number) => Math.round(v * 1000) / 1000;

function plan(rate: number, arrivals: Arrivals, seed: number, warmupMs: number, windowMs: number): StepPlan {
  return { rate, arrivals, seed, warmupMs, windowMs, maxWindows: 1, thresholds: { latency: [], ttfp: [], ttfr: [] } };
}

export async function overloadAndRecovery(runner: StepRunner, sustained: number, baselineP50Ms: number, arrivals: Arrivals, seed: number, windowMs: number): Promise<Overload> {
  const overRate = sustained * OVERLOAD_FACTOR;
  const over = await runner.runStep(plan(overRate, arrivals, seed, 1000, windowMs), (_, final) => (final ? 'done' : 'wait'));
  const windowS = over.windowMs / 1000;
  const goodput = over.goodInWindows / windowS;
  const total = over.settled + over.pending;
  const holds = goodput >= sustained * HOLDS_SHARE;
  const overSummary = holds
    ? `at ${r1(overRate)} req/s (1.5x) goodput held at ${r1(goodput)} req/s (${Math.round((goodput / sustained) * 100)} % of the sustained rate); p99 ${r1(over.latency.percentile(99))} ms`
    : `at ${r1(overRate)} req/s (1.5x) goodput collapsed to ${r1(goodput)} req/s (${Math.round((goodput / sustained) * 100)} % of the sustained rate); p99 ${r1(over.latency.percentile(99))} ms`;

  // Straight after the overload, at half the sustained rate: how long until the planned-send p50 is back.
  const recoveryRate = sustained * RECOVERY_FACTOR;
  const rec = await runner.runStep(plan(recoveryRate, arrivals, seed + 1, 0, RECOVERY_WINDOW_MS), (_, final) => (final ? 'done' : 'wait'));
  const limit = Math.max(baselineP50Ms * 2, baselineP50Ms + 5);
  const bins = rec.bins.filter((b) => b.latency.count > 0).map((b) => ({ atS: r3(b.atMs / 1000), p50: r3(b.latency.percentile(50)), p99: r3(b.latency.percentile(99)) }));
  // Recovered from the first bin after which every bin's p50 stays within the limit.
  let recoveredAfterS: number | null = null;
  for (let i = bins.length - 1; i >= 0 && bins[i]!.p50 <= limit; i--) recoveredAfterS = bins[i]!.atS;
  const summary = recoveredAfterS === null
    ? `latency had not returned to its baseline (p50 ${r1(baselineP50Ms)} ms, limit ${r1(limit)} ms) within ${RECOVERY_WINDOW_MS / 1000} s at ${r1(recoveryRate)} req/s`
    : `latency returned to its baseline (p50 within ${r1(limit)} ms) ${recoveredAfterS} s after the overload, at ${r1(recoveryRate)} req/s`;
  return {
    over: { offered: r3(overRate), achieved: r1(over.sent / windowS), goodput: r1(goodput), goodputShareOfSustained: r3(goodput / sustained), p99Ms: r3(over.latency.percentile(99)), errorRate: total > 0 ? r3(over.errors / total) : 0, holds, summary: overSummary },
    recovery: { offered: r3(recoveryRate), baselineP50Ms: r3(baselineP50Ms), recoveredAfterS, summary, binsMs: bins },
  };
}

/** p99 of the last third of the windows over the first third at or above this is drift; so is memory growing by this share. */
const P99_DRIFT = 1.5;
const RSS_DRIFT = 0.2;

/** A soak at `fraction` of the sustained rate for `durationS`, in windows (about 20, at least 5 s each). */
export async function soak(runner: StepRunner, sustained: number, fraction: number, durationS: number, arrivals: Arrivals, seed: number): Promise<Soak> {
  const rate = sustained * fraction;
  const windowS = Math.max(5, durationS / 20);
  const count = Math.max(1, Math.round(durationS / windowS));
  const windows: Soak['windows'] = [];
  for (let i = 0; i < count; i++) {
    const m = await runner.runStep(plan(rate, arrivals, seed + i, i === 0 ? 1000 : 0, windowS * 1000), (_, final) => (final ? 'done' : 'wait'));
    const total = m.settled + m.pending;
    windows.push({
      atS: r1(i * windowS), p99Ms: r3(m.latency.percentile(99)), errorRate: total > 0 ? r3(m.errors / total) : 0,
      ...(m.serverRssMiB !== undefined && { serverRssMiB: r1(m.serverRssMiB) }), ...(m.serverCpuCores !== undefined && { serverCpuCores: r3(m.serverCpuCores) }),
    });
  }
  const third = Math.max(1, Math.floor(windows.length / 3));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const first = median(windows.slice(0, third).map((w) => w.p99Ms));
  const last = median(windows.slice(-third).map((w) => w.p99Ms));
  const p99Ratio = first > 0 ? r3(last / first) : 1;
  const rss = windows.flatMap((w) => (w.serverRssMiB === undefined ? [] : [w.serverRssMiB]));
  const rssGrowthPct = rss.length >= 2 && rss[0]! > 0 ? r1(((rss.at(-1)! - rss[0]!) / rss[0]!) * 100) : null;
  const flagged = p99Ratio >= P99_DRIFT || (rssGrowthPct !== null && rssGrowthPct >= RSS_DRIFT * 100);
  const summary = `${durationS} s at ${r1(rate)} req/s (${Math.round(fraction * 100)} % of the sustained rate): p99 ${r1(first)} -> ${r1(last)} ms (x${p99Ratio})`
    + `${rssGrowthPct === null ? ', server memory not readable on this target' : `, server memory ${rssGrowthPct >= 0 ? '+' : ''}${rssGrowthPct} %`}${flagged ? ': DRIFT' : ': no drift'}`;
  return { offered: r3(rate), fraction, durationS, windows, drift: { p99Ratio, rssGrowthPct, flagged, summary } };
}
