/**
 * The capacity search's open-model driver: requests leave at planned times (constant or Poisson arrivals)
 * through an undici pool whatever the replies, and every latency is measured from the planned send time, so a
 * server that stalls cannot hide its stall by holding the generator back (coordinated omission: a closed loop
 * sends nothing while it waits, and measures only the requests it managed to send). The actual send time gives
 * the service time beside it, and the gap between the two is the generator's own send lag.
 *
 * A step is a warm-up, then measured windows back to back while the load goes on. When a window's time is up
 * the caller judges it (the windows so far, merged exactly); it may decide before the window's last replies
 * are in (a request still in flight past the SLO's threshold is already beyond it: it counts at its age so far,
 * a lower bound), wait for them, end the step, or extend it by another window. A request not complete within
 * the timeout is an error at the timeout, never a dropped sample.
 */
import { monitorEventLoopDelay, performance, type EventLoopUtilization } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { Pool } from 'undici';
import { checkReply, type ErrorKind } from '../reply-check.js';
import { requestHeaders, type LoadRequest } from '../scenarios.js';
import { isStaleConnection } from '../../src/wire/connections.js';
import { LatencyHistogram } from './latency-histogram.js';
import { addFigures, emptyFigures, type StepFigures } from './step-figures.js';
import type { LatencyMetric } from './slo.js';
import { seededRandom } from '../../src/kit/seeded-random.js';

export type Arrivals = 'constant' | 'poisson';

export interface DriverOptions {
  mcpUrl: string;
  /** Only ever placed in the Authorization header. */
  apiKey: string;
  /** The scenario's requests in weighted order (scenarios.ts `weightedCycle`). */
  requests: LoadRequest[];
  /** Connections of the pool: the most requests in flight before the pool queues (a generator limit). */
  connections: number;
  timeoutMs: number;
  /** The server's CPU time so far (µs) and resident memory (bytes), where the harness can read them. */
  serverStats?: () => Promise<{ cpuMicros?: number; rssBytes?: number }>;
  /** Work done before every send: the tests' generator slowed on purpose. */
  beforeSend?: () => void;
}

export interface StepPlan {
  rate: number;
  arrivals: Arrivals;
  seed: number;
  warmupMs: number;
  windowMs: number;
  /** The most windows the step may run (the caller's `extend` is refused beyond). */
  maxWindows: number;
  /** Thresholds whose exceedances are counted exactly, per metric. */
  thresholds: Record<LatencyMetric, number[]> & { sendLag?: number[] };
}

/** What the windows of a step measured so far (merged). */
/** A step's measurement: its windows' figures summed (step-figures.ts), and what the step adds. */
export interface StepMeasurement extends Omit<StepFigures, 'completed' | 'good'> {
  offered: number;
  warmupMs: number;
  windowMs: number;
  /** Requests still in flight when this measurement was taken (counted at their age so far). */
  pending: number;
  /** Replies whose completion time fell inside the windows, and of those the good ones (throughput by time). */
  completedInWindows: number;
  goodInWindows: number;
  inFlight: { start: number; end: number; max: number };
  /**
   * The generator's own load. `droppedIterations` (the k6 driver): iterations k6 planned in the windows and never
   * started, no VU being free (requests never sent, and never timed).
   */
  generator: { cpuCores: number; eventLoopUtilization: number; eventLoopDelayP99Ms: number; poolQueuedMax: number; droppedIterations?: number };
  serverCpuCores?: number;
  serverRssMiB?: number;
  /** Time bins of the step (warm-up included), for recovery: p50 and p99 from the planned send, by planned time. */
  bins: Array<{ atMs: number; latency: LatencyHistogram }>;
}

/** After a window's time is up: `wait` for more replies, end the step (`done`), or run another window (`extend`). */
export type Decision = 'wait' | 'done' | 'extend';

interface Window extends StepFigures {
  start: number;
  end: number;
  inFlightStart: number;
  inFlightEnd: number;
  inFlightMax: number;
  poolQueuedMax: number;
  opened?: { cpu: NodeJS.CpuUsage; elu: EventLoopUtilization; wall: number; server?: { cpuMicros?: number; rssBytes?: number } };
  closed?: { cpuCores: number; elu: number; eldP99Ms: number; server?: { cpuCores?: number; rssMiB?: number } };
}

interface InFlight {
  plannedAt: number;
  sentAt: number;
  window: Window | undefined;
  bin: number;
  request: LoadRequest;
  controller: AbortController;
  firstProgressAt?: number;
  resultAt?: number;
  settled: boolean;
  retried: boolean;
}


/** Width of the time bins a step keeps latency in, by planned send time (recovery, and whether a queue grows within a window). */
export const BIN_MS = 250;
const SWEEP_MS = 20;
/** How often a running window is judged for an early end, and the fewest samples that may end it. */
const EARLY_MS = 250;
const EARLY_MIN = 20;
const EARLY_AFTER_MS = 2000;

export class OpenModelDriver {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly bodies: Map<LoadRequest, string>;
  private readonly inFlight = new Set<InFlight>();
  private readonly eld = monitorEventLoopDelay({ resolution: 5 });
  private cycleAt = 0;
  /** The step being run: its windows and time bins, where replies are counted. */
  private step?: { windows: Window[]; bins: StepMeasurement['bins'] };
  /** Requests sent in all by this driver (what the run spent). */
  sentTotal = 0;

  constructor(private readonly options: DriverOptions) {
    const url = new URL(options.mcpUrl);
    this.path = `${url.pathname}${url.search}`;
    this.pool = new Pool(url.origin, { connections: options.connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 });
    this.headers = requestHeaders(options.apiKey);
    this.bodies = new Map(options.requests.map((r) => [r, JSON.stringify(r.body)]));
    this.eld.enable();
  }

  /**
   * One request on its own, its service time in ms (undefined when it failed): the low-rate baseline, and the
   * probe that tells when a server has drained what an overloaded step left it.
   */
  async single(): Promise<{ ms: number; ok: boolean } | undefined> {
    const request = this.options.requests[0]!;
    const sentAt = performance.now();
    this.sentTotal++;
    try {
      const res = await this.pool.request({ path: this.path, method: 'POST', headers: this.headers, body: this.bodies.get(request)!, signal: AbortSignal.timeout(this.options.timeoutMs) });
      const text = await res.body.text();
      const ok = res.statusCode >= 200 && res.statusCode < 300 && text.length > 0;
      return { ms: performance.now() - sentAt, ok };
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    this.eld.disable();
    for (const r of this.inFlight) r.controller.abort();
    await this.pool.close().catch(() => undefined);
  }

  /**
   * Runs one step at `plan.rate`: warm-up, then windows until `decide` ends it. `decide` is asked every
   * SWEEP_MS once a window's time is up, with the windows so far merged and `final` true once all their
   * replies are in.
   */
  async runStep(plan: StepPlan, decide: (m: StepMeasurement, final: boolean) => Decision): Promise<StepMeasurement> {
    const next = plan.arrivals === 'poisson' ? (() => {
      const rnd = seededRandom(plan.seed);
      return () => (-Math.log(1 - rnd()) / plan.rate) * 1000;
    })() : () => 1000 / plan.rate;
    const t0 = performance.now();
    const measuredFrom = t0 + plan.warmupMs;
    const windows: Window[] = [];
    const bins: Array<{ atMs: number; latency: LatencyHistogram }> = [];
    let lastWindow = 0; // index of the last window the step keeps
    let stopped = false;
    let planned = t0 + next();
    this.step = { windows, bins };
    const window = (at: number): Window | undefined => {
      if (at < measuredFrom) return undefined;
      const i = Math.floor((at - measuredFrom) / plan.windowMs);
      if (i > lastWindow + 1) return undefined; // beyond what may still be kept
      while (windows.length <= i) windows.push(this.newWindow(measuredFrom + windows.length * plan.windowMs, plan));
      return windows[i];
    };
    const binOf = (at: number): number => {
      const i = Math.floor((at - t0) / BIN_MS);
      while (bins.length <= i) bins.push({ atMs: bins.length * BIN_MS, latency: new LatencyHistogram() });
      return i;
    };

    // Sending: every request whose planned time has come leaves now; lag is what the timer and the loop added.
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      if (stopped) return;
      const now = performance.now();
      this.openWindows(windows, now);
      while (planned <= now) {
        const w = window(planned);
        if (w) w.planned++;
        this.send(planned, w, binOf(planned));
        planned += next();
      }
      timer = setTimeout(tick, Math.max(0, planned - performance.now() - 0.2));
    };
    // The sweep: timeouts, in-flight and pool samples.
    const sweep = setInterval(() => {
      const now = performance.now();
      for (const r of this.inFlight) if (now - r.sentAt >= this.options.timeoutMs) this.settle(r, 'timeout', now);
      const queued = this.pool.stats.queued;
      const open = windows.find((w) => w.start <= now && now < w.end);
      if (open) {
        open.inFlightMax = Math.max(open.inFlightMax, this.inFlight.size);
        open.poolQueuedMax = Math.max(open.poolQueuedMax, queued);
      }
    }, SWEEP_MS);
    tick();

    try {
      const measure = (now: number): { m: StepMeasurement; pending: number } => {
        this.openWindows(windows, now);
        const kept = windows.slice(0, lastWindow + 1);
        const pending = [...this.inFlight].filter((r) => r.window && kept.includes(r.window));
        return { m: this.merge(kept, pending, now, plan, bins), pending: pending.length };
      };
      for (;;) {
        const windowEnd = measuredFrom + (lastWindow + 1) * plan.windowMs;
        // While the window runs: a step that already broke its SLO (or drew a 429) ends now, not at the window's end.
        while (performance.now() < windowEnd) {
          await sleep(Math.min(EARLY_MS, Math.max(0, windowEnd - performance.now())));
          const now = performance.now();
          // Samples close in time share their disturbances (one stall holds them all): an early end needs half
          // the window (at most 2 s) behind it.
          if (now < measuredFrom || now >= windowEnd || now - (windowEnd - plan.windowMs) < Math.min(plan.windowMs / 2, EARLY_AFTER_MS)) continue;
          const { m } = measure(now);
          if (m.settled + m.pending >= EARLY_MIN && decide(m, false) === 'done') return await this.withServerFigures(m, windows.slice(0, lastWindow + 1));
        }
        for (;;) {
          const { m, pending } = measure(performance.now());
          let decision = decide(m, pending === 0);
          if (decision === 'extend' && lastWindow + 1 >= plan.maxWindows) decision = pending === 0 ? 'done' : 'wait';
          if (decision === 'done') return await this.withServerFigures(m, windows.slice(0, lastWindow + 1));
          if (decision === 'extend') break;
          await sleep(SWEEP_MS * 2);
        }
        lastWindow++;
      }
    } finally {
      stopped = true;
      clearTimeout(timer);
      clearInterval(sweep);
      // What the step leaves in flight is not judged: abort it, so the next step starts on its own.
      for (const r of this.inFlight) {
        r.settled = true;
        r.controller.abort();
      }
      this.inFlight.clear();
      this.step = undefined;
    }
  }

  private newWindow(start: number, plan: StepPlan): Window {
    return { start, end: start + plan.windowMs, ...emptyFigures(plan), inFlightStart: 0, inFlightEnd: 0, inFlightMax: 0, poolQueuedMax: 0 };
  }

  /** Opens and closes windows by the clock: the generator's CPU, event-loop utilization and delay, and the server's, per window. */
  private openWindows(windows: Window[], now: number): void {
    for (const w of windows) {
      if (!w.opened && now >= w.start) {
        w.inFlightStart = this.inFlight.size;
        w.opened = { cpu: process.cpuUsage(), elu: performance.eventLoopUtilization(), wall: now };
        this.eld.reset();
        const opened = w.opened;
        this.track(this.options.serverStats?.().then((s) => { opened.server = s; }, () => undefined));
      }
      if (w.opened && !w.closed && now >= w.end) {
        w.inFlightEnd = this.inFlight.size;
        const wallMs = now - w.opened.wall;
        const cpu = process.cpuUsage(w.opened.cpu);
        const closed: NonNullable<Window['closed']> = {
          cpuCores: (cpu.user + cpu.system) / 1000 / wallMs,
          elu: performance.eventLoopUtilization(w.opened.elu).utilization,
          eldP99Ms: this.eld.count > 0 ? this.eld.percentile(99) / 1e6 : 0,
        };
        w.closed = closed;
        const before = w.opened.server;
        this.track(this.options.serverStats?.().then((s) => {
          closed.server = {
            ...(before?.cpuMicros !== undefined && s.cpuMicros !== undefined && { cpuCores: (s.cpuMicros - before.cpuMicros) / 1000 / wallMs }),
            ...(s.rssBytes !== undefined && { rssMiB: s.rssBytes / 2 ** 20 }),
          };
        }, () => undefined));
      }
    }
  }

  /** The server's figures still being read (over IPC, from /proc): awaited before a step returns. */
  private readonly reading = new Set<Promise<void>>();

  private track(p: Promise<void> | undefined): void {
    if (!p) return;
    this.reading.add(p);
    void p.finally(() => this.reading.delete(p));
  }

  /** Waits (at most a second) for the server's figures of the windows, and puts them on `m`. */
  private async withServerFigures(m: StepMeasurement, windows: Window[]): Promise<StepMeasurement> {
    if (this.reading.size > 0) await Promise.race([Promise.all(this.reading), sleep(1000)]);
    return Object.assign(m, serverFigures(windows));
  }

  private send(plannedAt: number, window: Window | undefined, bin: number): void {
    this.options.beforeSend?.();
    const request = this.options.requests[this.cycleAt++ % this.options.requests.length]!;
    const sentAt = performance.now();
    const r: InFlight = { plannedAt, sentAt, window, bin, request, controller: new AbortController(), settled: false, retried: false };
    if (window) {
      window.sent++;
      window.sendLag.record(sentAt - plannedAt);
    }
    this.inFlight.add(r);
    this.sentTotal++;
    this.dispatch(r);
  }

  private dispatch(r: InFlight): void {
    this.pool.request({ path: this.path, method: 'POST', headers: this.headers, body: this.bodies.get(r.request)!, signal: r.controller.signal })
      .then(async (res) => {
        const status = res.statusCode;
        const contentType = String(res.headers['content-type'] ?? '');
        if (status < 200 || status >= 300) {
          await res.body.dump().catch(() => undefined);
          this.settle(r, checkReply(r.request, status, contentType, undefined).kind ?? 'http-4xx', performance.now());
          return;
        }
        let messages: unknown[] | undefined;
        try {
          if (/^text\/event-stream\b/i.test(contentType)) {
            messages = [];
            const parsed = messages;
            const parser = createParser({
              onEvent: (e) => {
                const message = JSON.parse(e.data) as Record<string, unknown>;
                parsed.push(message);
                if (message.method === 'notifications/progress') r.firstProgressAt ??= performance.now();
                else if ('result' in message || 'error' in message) r.resultAt ??= performance.now();
              },
            });
            const decoder = new TextDecoder();
            for await (const chunk of res.body) parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
          } else {
            messages = [JSON.parse(await res.body.text()) as unknown];
          }
        } catch {
          if (r.settled) return;
          messages = undefined;
        }
        const verdict = checkReply(r.request, status, contentType, messages);
        this.settle(r, verdict.ok ? 'ok' : verdict.kind ?? 'unparseable', performance.now());
      }, (err: unknown) => {
        if (r.settled) return;
        // A kept-alive connection the server had closed before any reply: the request never reached it. Once more, as sent.
        if (!r.retried && isStaleConnection(err)) {
          r.retried = true;
          this.dispatch(r);
          return;
        }
        this.settle(r, 'connection', performance.now());
      });
  }

  private settle(r: InFlight, outcome: ErrorKind | 'ok', now: number): void {
    if (r.settled) return;
    r.settled = true;
    this.inFlight.delete(r);
    if (outcome === 'timeout') r.controller.abort();
    const good = outcome === 'ok';
    const w = r.window;
    const endAt = outcome === 'timeout' ? r.sentAt + this.options.timeoutMs : now;
    this.countCompletion(r, endAt, good);
    if (outcome !== 'http-429') this.step?.bins[r.bin]?.latency.record(endAt - r.plannedAt);
    if (!w) return;
    w.settled++;
    if (outcome === 'http-429') {
      w.rateLimited++;
      return;
    }
    if (good) w.ok++;
    else {
      w.errors++;
      w.errorsByKind[outcome] = (w.errorsByKind[outcome] ?? 0) + 1;
    }
    w.latency.record(endAt - r.plannedAt);
    w.service.record(endAt - r.sentAt);
    if (r.request.streaming) {
      w.ttfp.record((good && r.firstProgressAt !== undefined ? r.firstProgressAt : endAt) - r.plannedAt);
      w.ttfr.record((good && r.resultAt !== undefined ? r.resultAt : endAt) - r.plannedAt);
    }
  }

  /** Throughput by the clock: the window open when a reply completed counts it (windows are contiguous: one at most). */
  private countCompletion(r: InFlight, at: number, good: boolean): void {
    const step = this.step;
    if (!step) return;
    for (let i = step.windows.length - 1; i >= 0; i--) {
      const w = step.windows[i]!;
      if (w.start <= at && at < w.end) {
        w.completed++;
        if (good) w.good++;
        break;
      }
    }
  }

  /** The windows merged, with the requests still in flight counted at their age so far. */
  private merge(windows: Window[], pending: InFlight[], now: number, plan: StepPlan, bins: StepMeasurement['bins']): StepMeasurement {
    const total = emptyFigures(plan);
    for (const w of windows) addFigures(total, w);
    const { completed, good, ...figures } = total;
    const m: StepMeasurement = {
      offered: plan.rate, warmupMs: plan.warmupMs, windowMs: windows.reduce((sum, w) => sum + Math.max(0, Math.min(now, w.end) - w.start), 0),
      ...figures, pending: pending.length, completedInWindows: completed, goodInWindows: good,
      inFlight: { start: windows[0]?.inFlightStart ?? 0, end: windows.at(-1)?.inFlightEnd ?? 0, max: 0 },
      generator: { cpuCores: 0, eventLoopUtilization: 0, eventLoopDelayP99Ms: 0, poolQueuedMax: 0 },
      bins,
    };
    for (const w of windows) {
      m.inFlight.max = Math.max(m.inFlight.max, w.inFlightMax);
      m.generator.poolQueuedMax = Math.max(m.generator.poolQueuedMax, w.poolQueuedMax);
      if (w.closed) {
        m.generator.cpuCores = Math.max(m.generator.cpuCores, w.closed.cpuCores);
        m.generator.eventLoopUtilization = Math.max(m.generator.eventLoopUtilization, w.closed.elu);
        m.generator.eventLoopDelayP99Ms = Math.max(m.generator.eventLoopDelayP99Ms, w.closed.eldP99Ms);
      }
    }
    Object.assign(m, serverFigures(windows));
    for (const r of pending) {
      const age = now - r.plannedAt;
      m.latency.record(age);
      m.service.record(now - r.sentAt);
      if (r.request.streaming) {
        m.ttfp.record((r.firstProgressAt ?? now) - r.plannedAt);
        m.ttfr.record(age);
      }
    }
    return m;
  }
}

/** The server's CPU (mean over the windows that have it) and its memory at the last window's end, where read. */
function serverFigures(windows: Window[]): { serverCpuCores?: number; serverRssMiB?: number } {
  const cpu = windows.flatMap((w) => (w.closed?.server?.cpuCores !== undefined ? [w.closed.server.cpuCores] : []));
  const rss = windows.flatMap((w) => (w.closed?.server?.rssMiB !== undefined ? [w.closed.server.rssMiB] : []));
  return {
    ...(cpu.length > 0 && { serverCpuCores: cpu.reduce((a, b) => a + b, 0) / cpu.length }),
    ...(rss.length > 0 && { serverRssMiB: rss.at(-1)! }),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
