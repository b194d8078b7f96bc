/**
 * What one k6 run of load/k6/capacity-step.ts left behind (its per-request rows under `--out csv`, and its
 * capacity-step.json) turned into the figures a capacity step is judged on, the same figures the undici driver
 * measures: latency from the planned send, service time, send lag, outcomes, completions by the clock, requests
 * in flight, and what k6 dropped. Samples, not k6's aggregates: a window's exceedances are counted exactly and
 * the runs of an extended step merge exactly (percentiles of percentiles would not).
 *
 * The planned send of the iteration k6 numbered n is not simply n / rate after the start: k6 numbers only the
 * iterations it starts, and drops a tick when no VU is free. Its scheduler takes the ticks one after another,
 * each either started (the `cap_started` rows, in k6's numbering) or dropped (the `dropped_iterations` rows):
 * the two, merged by time, give each started iteration its tick. The scenario's start is the earliest any
 * iteration started less its planned offset (an iteration never starts before its tick), within the script's
 * own coarse estimate.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ERROR_KINDS, type ErrorKind } from '../reply-check.js';
import type { LoadRequest } from '../scenarios.js';
import { LatencyHistogram } from './latency-histogram.js';
import { addFigures, emptyFigures, type StepFigures } from './step-figures.js';
import type { StepMeasurement, StepPlan } from './open-model-driver.js';

/** One request, as the script's `s` metadata has it: times on k6's test-run clock, ms. */
export interface K6Sample {
  n: number;
  start: number;
  end: number;
  /** k6's timings.duration: from the actual send to the end of the reply. */
  service: number;
  outcome: ErrorKind | 'ok';
  /** The request's position in the scenario's weighted cycle. */
  position: number;
}

/** capacity-step.json, written by the script's handleSummary. */
export interface K6StepSummary {
  scenario: string;
  /** A distributed run's runner: its execution segment, and its share of the arrivals (1 when it ran the whole test). */
  executionSegment: string | null;
  share: number;
  rate: number;
  /** k6's ticker period, ms: iteration tick g is planned g x this after the scenario's start. */
  periodMs: number;
  warmupMs: number;
  windowMs: number;
  gracefulStopMs: number;
  vus: number;
  testRunDurationMs: number;
  iterations: number;
  droppedIterations: number;
  samples: number;
}

export interface K6RunOutput {
  samples: K6Sample[];
  /** When each iteration started (by k6's number), on the test-run clock: the interrupted ones too. */
  starts: Map<number, number>;
  /** When k6 dropped an iteration, on the test-run clock (ms). */
  drops: number[];
  /** The script's coarse estimate of the scenario's start on the test-run clock (from whole Unix ms), when iteration 0 reported it. */
  coarseOrigin?: number;
}

const KINDS = new Set<string>(['ok', ...ERROR_KINDS]);

/** The last field of a CSV row (the metadata column), unquoted. */
function lastField(line: string): string {
  if (!line.endsWith('"')) return line.slice(line.lastIndexOf(',') + 1);
  const open = line.lastIndexOf(',"');
  return line.slice(open + 2, -1).replace(/""/g, '"');
}

/** `s=...&o=...` → its pairs. */
function metadataOf(field: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of field.split('&')) {
    const eq = pair.indexOf('=');
    if (eq > 0) out.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return out;
}

/**
 * Reads k6's CSV output of one run (`timeFormat=unix_micro`): the `cap_latency` rows' samples and the
 * `dropped_iterations` rows' times. A sample's row time is when it was recorded, just after its `end` on the
 * test-run clock: the smallest difference between the two puts the drops on that clock.
 */
export async function readK6Csv(path: string): Promise<K6RunOutput> {
  const samples: K6Sample[] = [];
  const starts = new Map<number, number>();
  const dropWallMs: number[] = [];
  let wallMinusRun = Infinity;
  let coarseOrigin: number | undefined;
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.startsWith('dropped_iterations,')) {
      dropWallMs.push(Number(line.split(',', 3)[1]) / 1000);
      continue;
    }
    if (line.startsWith('cap_started,')) {
      const [n, start] = (metadataOf(lastField(line)).get('b') ?? '').split(' ').map(Number);
      if (!Number.isInteger(n) || !Number.isFinite(start)) throw new Error(`k6 output: a cap_started row without its metadata: ${line.slice(0, 200)}`);
      starts.set(n!, start!);
      continue;
    }
    if (!line.startsWith('cap_latency,')) continue;
    const meta = metadataOf(lastField(line));
    const s = meta.get('s')?.split(' ');
    if (!s || s.length < 6) throw new Error(`k6 output: a cap_latency row without its sample metadata: ${line.slice(0, 200)}`);
    const [n, start, end, service, outcome, position] = s as [string, string, string, string, string, string];
    if (!KINDS.has(outcome)) throw new Error(`k6 output: unknown outcome "${outcome}"`);
    const sample: K6Sample = { n: Number(n), start: Number(start), end: Number(end), service: Number(service), outcome: outcome as K6Sample['outcome'], position: Number(position) };
    if (![sample.n, sample.start, sample.end, sample.service, sample.position].every(Number.isFinite)) throw new Error(`k6 output: a malformed sample "${s.join(' ')}"`);
    samples.push(sample);
    wallMinusRun = Math.min(wallMinusRun, Number(line.split(',', 3)[1]) / 1000 - sample.end);
    const o = meta.get('o');
    if (o !== undefined && Number.isFinite(Number(o))) coarseOrigin = Number(o);
  }
  samples.sort((a, b) => a.n - b.n);
  for (const s of samples) if (!starts.has(s.n)) starts.set(s.n, s.start);
  const drops = (Number.isFinite(wallMinusRun) ? dropWallMs.map((w) => w - wallMinusRun) : []).sort((a, b) => a - b);
  return { samples, starts, drops, ...(coarseOrigin !== undefined && { coarseOrigin }) };
}

/** One run's figures: the undici driver's window, from k6's samples. */
export interface K6RunFigures extends StepFigures {
  /** Iterations of the window still running when k6's graceful stop ended them (no sample): counted at their age then. */
  pending: number;
  dropped: number;
  inFlight: { start: number; end: number; max: number };
  /** Requests of the whole run, warm-up included (what it spent). */
  requests: number;
  bins: StepMeasurement['bins'];
}

const BIN_MS = 250;

/** Ceil that forgives floating-point dust (1000 / (1000 / 3) is 3.0000000000000004). */
const ceil = (v: number) => Math.ceil(v - 1e-9);

/**
 * The figures of one run of `plan` (its warm-up, then one window). `cycle`: the scenario's weighted cycle, to
 * know which samples are streaming requests (their time to the result is the whole reply: k6 reads it whole).
 */
export function runFigures(output: K6RunOutput, summary: K6StepSummary, plan: StepPlan, cycle: readonly LoadRequest[]): K6RunFigures {
  const p = summary.periodMs;
  const firstTick = ceil(summary.warmupMs / p);
  const endTick = ceil((summary.warmupMs + summary.windowMs) / p);
  const { samples, starts, drops } = output;
  const numbers = [...starts.keys()].sort((a, b) => a - b);

  // The scenario's start: no iteration starts before its tick, and the n-th started is at tick n or later.
  let origin = Infinity;
  for (const [n, start] of starts) origin = Math.min(origin, start - n * p);
  if (output.coarseOrigin !== undefined) origin = Math.min(origin, output.coarseOrigin + 1);
  if (!Number.isFinite(origin)) origin = output.coarseOrigin ?? 0;

  // A runner of a distributed run with an equal share (k6-operator's parallelism N) has every N-th tick of the
  // test, from its first: its own ticks are counted in that stride. (Unequal segments are striped less
  // regularly: there a drop's tick is only near its own, as such a step is invalid or failed anyway.)
  const share = summary.share > 0 && summary.share <= 1 ? summary.share : 1;
  const stride = Math.round(1 / share);
  const step = share < 1 && Math.abs(stride * share - 1) < 1e-9 ? stride : 1;
  const first = step > 1 ? (numbers[0] ?? 0) % step : 0;
  const own = (tick: number) => (tick - first) / step;
  const tickAt = (ownIndex: number) => first + ownIndex * step;

  // Each tick was started or dropped, in order: the earlier of the next start and the next drop had it, and
  // every drop moves the ticks of the iterations started after it one on.
  const tickOf = new Map<number, number>();
  const dropTicks: number[] = [];
  const afterLast = numbers.length > 0 ? own(numbers.at(-1)!) + 1 : 0;
  for (let i = 0, k = 0, shift = 0; i < numbers.length || k < drops.length;) {
    const startAt = i < numbers.length ? starts.get(numbers[i]!)! : Infinity;
    if (k < drops.length && drops[k]! < startAt) {
      dropTicks.push(tickAt((i < numbers.length ? own(numbers[i]!) : afterLast) + shift++));
      k++;
    } else {
      tickOf.set(numbers[i]!, tickAt(own(numbers[i]!) + shift));
      i++;
    }
  }
  const planned = step > 1
    ? Math.max(0, ceil((endTick - first) / step) - ceil((firstTick - first) / step))
    : Math.round((endTick - firstTick) * share);

  const f: K6RunFigures = {
    ...emptyFigures(plan), planned, pending: 0, dropped: dropTicks.filter((g) => g >= firstTick && g < endTick).length,
    inFlight: { start: 0, end: 0, max: 0 }, requests: samples.length, bins: [],
  };
  const windowStart = origin + summary.warmupMs;
  const windowEnd = windowStart + summary.windowMs;
  const inWindow = (tick: number) => tick >= firstTick && tick < endTick;
  const bin = (tick: number) => {
    const i = Math.floor((tick * p) / BIN_MS);
    while (f.bins.length <= i) f.bins.push({ atMs: f.bins.length * BIN_MS, latency: new LatencyHistogram() });
    return f.bins[i]!;
  };
  /** In-flight intervals [from, to) of the run, for the counts at the window's edges and its peak. */
  const edges: Array<[number, number]> = [];

  const seen = new Set<number>();
  for (const s of samples) {
    seen.add(s.n);
    const tick = tickOf.get(s.n)!;
    const plannedAt = origin + tick * p;
    const latency = s.end - plannedAt;
    const good = s.outcome === 'ok';
    edges.push([s.start, 1], [s.end, -1]);
    if (s.end >= windowStart && s.end < windowEnd) {
      f.completed++;
      if (good) f.good++;
    }
    if (s.outcome !== 'http-429') bin(tick).latency.record(latency);
    if (!inWindow(tick)) continue;
    f.sent++;
    f.settled++;
    f.sendLag.record(s.start - plannedAt);
    if (s.outcome === 'http-429') {
      f.rateLimited++;
      continue;
    }
    if (s.outcome === 'ok') f.ok++;
    else {
      f.errors++;
      f.errorsByKind[s.outcome] = (f.errorsByKind[s.outcome] ?? 0) + 1;
    }
    f.latency.record(latency);
    // A request that failed before any reply has no duration of its own in k6: its time from the iteration's start.
    f.service.record(s.service > 0 ? s.service : s.end - s.start);
    if (cycle[s.position]?.streaming) f.ttfr.record(latency);
  }

  // Started but never reported: still running when the graceful stop ended the scenario; in flight until then.
  const stoppedAt = origin + summary.warmupMs + summary.windowMs + summary.gracefulStopMs;
  for (const n of numbers) {
    if (seen.has(n)) continue;
    const tick = tickOf.get(n)!;
    const plannedAt = origin + tick * p;
    const start = starts.get(n)!;
    edges.push([start, 1], [stoppedAt, -1]);
    f.requests++;
    if (!inWindow(tick)) continue;
    f.sent++;
    f.pending++;
    f.sendLag.record(start - plannedAt);
    f.latency.record(stoppedAt - plannedAt);
    f.service.record(stoppedAt - start);
    if (cycle[n % cycle.length]?.streaming) f.ttfr.record(stoppedAt - plannedAt);
  }

  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let level = 0;
  let startSet = false;
  for (const [at, d] of edges) {
    if (!startSet && at >= windowStart) {
      f.inFlight.start = level;
      startSet = true;
    }
    if (at >= windowEnd) break;
    level += d;
    if (at >= windowStart) f.inFlight.max = Math.max(f.inFlight.max, level);
  }
  if (!startSet) f.inFlight.start = level;
  f.inFlight.end = level;
  f.inFlight.max = Math.max(f.inFlight.max, f.inFlight.start);
  return f;
}

/** The runs of a step merged, as the undici driver merges its windows: histograms exactly, counts summed. */
export function mergeRuns(runs: readonly K6RunFigures[], plan: StepPlan, generator: { cpuCores: number }, server: { cpuCores?: number; rssMiB?: number }): StepMeasurement {
  const total = emptyFigures(plan);
  for (const r of runs) addFigures(total, r);
  const { completed, good, ...figures } = total;
  const m: StepMeasurement = {
    offered: plan.rate, warmupMs: plan.warmupMs, windowMs: runs.length * plan.windowMs,
    ...figures, pending: 0, completedInWindows: completed, goodInWindows: good,
    inFlight: { start: runs[0]?.inFlight.start ?? 0, end: runs.at(-1)?.inFlight.end ?? 0, max: 0 },
    generator: { cpuCores: generator.cpuCores, eventLoopUtilization: 0, eventLoopDelayP99Ms: 0, poolQueuedMax: 0, droppedIterations: 0 },
    ...(server.cpuCores !== undefined && { serverCpuCores: server.cpuCores }),
    ...(server.rssMiB !== undefined && { serverRssMiB: server.rssMiB }),
    bins: [],
  };
  let binOffset = 0;
  for (const r of runs) {
    m.pending += r.pending;
    m.inFlight.max = Math.max(m.inFlight.max, r.inFlight.max);
    m.generator.droppedIterations! += r.dropped;
    // Each run has its own warm-up: its bins follow the previous run's.
    for (const b of r.bins) m.bins.push({ atMs: binOffset + b.atMs, latency: b.latency });
    binOffset += Math.ceil((plan.warmupMs + plan.windowMs) / BIN_MS) * BIN_MS;
  }
  return m;
}

/** The runners of one distributed run (k6-operator's execution segments), each judged on its own clock, as one window. */
export function combineRunners(runners: readonly K6RunFigures[], plan: StepPlan): K6RunFigures {
  const f: K6RunFigures = {
    ...emptyFigures(plan), pending: 0, dropped: 0,
    // Summed: the peak is at most the sum of the runners' peaks.
    inFlight: { start: 0, end: 0, max: 0 }, requests: 0, bins: [],
  };
  for (const r of runners) {
    addFigures(f, r);
    for (const key of ['pending', 'dropped', 'requests'] as const) f[key] += r[key];
    f.inFlight.start += r.inFlight.start;
    f.inFlight.end += r.inFlight.end;
    f.inFlight.max += r.inFlight.max;
    r.bins.forEach((b, i) => {
      while (f.bins.length <= i) f.bins.push({ atMs: f.bins.length * BIN_MS, latency: new LatencyHistogram() });
      f.bins[i]!.latency.add(b.latency);
    });
  }
  return f;
}

/** One run's files: its per-request CSV and its capacity-step.json (one pair per runner of a distributed run). */
export interface K6RunFiles {
  csv: string;
  summary: string;
}

/** The figures of one run of `plan` from its runners' files. */
export async function readK6Run(runners: readonly K6RunFiles[], plan: StepPlan, cycle: readonly LoadRequest[]): Promise<K6RunFigures> {
  const figures: K6RunFigures[] = [];
  for (const files of runners) {
    const summary = JSON.parse(readFileSync(files.summary, 'utf8')) as K6StepSummary;
    figures.push(runFigures(await readK6Csv(files.csv), summary, plan, cycle));
  }
  return figures.length === 1 ? figures[0]! : combineRunners(figures, plan);
}
