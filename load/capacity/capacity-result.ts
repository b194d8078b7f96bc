/**
 * capacity.json, the result of one capacity search (load/capacity/search.ts finds it, load/capacity/report/
 * renders it): per scenario, the highest offered rate that held the SLO, the lowest that broke it, which
 * bound the search met, and every step it ran with the figures it was judged on.
 */

/** Latency percentiles of one step, ms. `planned`: from the planned send time (what the SLO judges); `service`: from the actual send. */
export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/**
 * Which bound the search met. slo: a step broke the SLO (the only bound that is a capacity). rate-limit: 429s
 * came before the SLO broke (a plan's limit, not a capacity). generator: the harness's machine could not offer
 * more (the service holds at least `sustained`). cap: `--max-rate` held the SLO. time: the time budget ran out
 * before the boundary was bracketed.
 */
export type Bound = 'slo' | 'rate-limit' | 'generator' | 'cap' | 'time';

/**
 * pass: the SLO held, with confidence. fail: it broke, with confidence (or completions fell behind the offered
 * rate). uncertain: the longest window allowed still could not decide (counted as not holding). rate-limited:
 * 429s. invalid: the generator fell behind (achieved rate, send lag, its event loop or its pool): the step says
 * nothing about the service.
 */
export type StepVerdict = 'pass' | 'fail' | 'uncertain' | 'rate-limited' | 'invalid';

export type StepPhase = 'calibrate' | 'geometric' | 'bisect' | 'confirm' | 'overload' | 'recovery' | 'soak';

/** One SLO term as written and as judged on a step: the measured value against the threshold. */
export interface TermJudgement {
  /** As written, e.g. `p99<=75ms`, `ttfr-p99<=2s`, `errors<=1%`. */
  term: string;
  /** The measured value (ms, or a fraction for errors). */
  measured: number;
  threshold: number;
  /** Samples above the threshold (or errors) out of `samples`, and the 95 % interval of that share against the allowed share. */
  exceeding: number;
  samples: number;
  allowedShare: number;
  interval: [number, number];
  verdict: 'pass' | 'fail' | 'uncertain';
}

export interface StepRecord {
  index: number;
  phase: StepPhase;
  /** Planned arrival rate, req/s. */
  offered: number;
  /** Requests sent in the measured window per second. */
  achieved: number;
  /** Successful replies per second (completions in the window that were not errors or 429s). */
  goodput: number;
  /** Replies of any kind per second, completed in the window. */
  completed: number;
  /** Measured window, s (after `warmupS`), the sum of its extensions. */
  windowS: number;
  warmupS: number;
  /** Requests planned in the measured window. */
  requests: number;
  /** Latency from the planned send time (SLO) and from the actual send (service time), ms. */
  latencyMs: { planned: Percentiles; service: Percentiles };
  /** Streaming scenarios: time to the first progress notification and to the final result, from the planned send, ms. */
  ttfpMs?: Percentiles;
  ttfrMs?: Percentiles;
  /** Shares of the window's requests. */
  errorRate: number;
  rate429: number;
  errorsByKind: Record<string, number>;
  /** How late requests left after their planned time, ms. */
  sendLagMs: { p50: number; p99: number; max: number };
  /** Requests in flight when the window opened and closed, and at most. */
  inFlight: { start: number; end: number; max: number };
  /** The generator's own load over the window; `droppedIterations`: the k6 driver's iterations never started (no free VU). */
  generator: { cpuCores: number; eventLoopUtilization: number; eventLoopDelayP99Ms: number; poolQueuedMax: number; droppedIterations?: number };
  /** The server's CPU (cores) over the window, where the harness can read it (embedded, fixtures). */
  serverCpuCores?: number;
  /** The server's resident memory at the window's end, MiB, where known. */
  serverRssMiB?: number;
  verdict: StepVerdict;
  /** One sentence: why this verdict (the term that broke, the bound the generator met, the 429 share...). */
  reason: string;
  terms: TermJudgement[];
}

export interface Overload {
  /** 1.5x the sustained rate: does goodput hold, or collapse? */
  over: { offered: number; achieved: number; goodput: number; goodputShareOfSustained: number; p99Ms: number; errorRate: number; holds: boolean; summary: string };
  /** Then 0.5x: how long until latency is back at its low-rate baseline. */
  recovery: { offered: number; baselineP50Ms: number; recoveredAfterS: number | null; summary: string; binsMs: Array<{ atS: number; p50: number; p99: number }> };
}

export interface Soak {
  offered: number;
  fraction: number;
  durationS: number;
  windows: Array<{ atS: number; p99Ms: number; errorRate: number; serverRssMiB?: number; serverCpuCores?: number }>;
  drift: { p99Ratio: number; rssGrowthPct: number | null; flagged: boolean; summary: string };
}

export interface ScenarioCapacity {
  scenario: string;
  streaming: boolean;
  /** The SLO as written and its terms. */
  slo: string;
  /** Highest offered rate whose step held the SLO (req/s), or null when none did; always null with bound rate-limit (429s are never capacity). */
  sustained: number | null;
  /** Lowest offered rate whose step broke it (req/s), or null when none did. */
  broke: number | null;
  bound: Bound;
  /** One line a person reads first: "holds 412 req/s (p99<=75ms broke at 433 req/s)", "at least 3,800 req/s: the generator ..." */
  summary: string;
  /** Low-rate service time: the baseline every step is compared with. */
  baseline?: { rate: number; serviceP50Ms: number; serviceP99Ms: number };
  /**
   * The lowest offered rate that drew 429s, and a hint; with bound rate-limit, also the highest that drew none
   * (not a capacity: a token bucket's burst stretches what a window admits).
   */
  rateLimit?: { firstAt: number; heldUpTo?: number; hint: string };
  steps: StepRecord[];
  overload?: Overload;
  soak?: Soak;
  /** Requests this scenario's search sent in all. */
  requests: number;
  durationS: number;
}

export interface CapacityReport {
  schemaVersion: 1;
  tool: { name: 'capacity'; version: string };
  target: { kind: string; baseUrl: string; description: string };
  startedAt: string;
  durationS: number;
  driver: 'undici' | 'k6';
  arrivals: 'constant' | 'poisson';
  /** The generator's ceiling measured against a no-op endpoint on this machine, req/s (null when not calibrated), and the options that shaped the search. */
  calibration: { generatorCeiling: number | null; note: string; requests?: number };
  options: { maxRate: number; startRate: number; tolerancePct: number; warmupS: number; windowS: number; maxWindowS: number; timeoutS: number; maxTimeS: number; expectRate?: number; connections: number };
  /** What the run spent on the deployment (calibration's requests went to a no-op endpoint of the harness's own: `calibration.requests`). */
  spent: { requests: number; durationS: number };
  scenarios: ScenarioCapacity[];
  /** 0 a sound answer for every scenario; 1 `--expect-rate` not met; 2 no sound answer (why in `noAnswer`). */
  exitCode: 0 | 1 | 2;
  noAnswer?: string;
  findings: string[];
}
