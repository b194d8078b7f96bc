/**
 * probe.json, the result of one rate-limit probe (load/probe/probe.ts writes it, probe-report.ts renders it):
 * what was measured, the verdicts and the findings in words.
 */
import type { ShapeFinding, Verdict } from './analysis.js';
import type { HeaderFindings } from '../../src/wire/rate-limit-headers.js';
import type { RetryAfterFindings } from './retry-after.js';
import type { StepClass } from './stepper.js';

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
  /** How late the latest request went out, ms (above 250 ms a step is disturbed and run again: stepper.ts's disturbance). */
  maxLateMs: number;
}

/**
 * Why the steps ended. generator-bound: a throttled step whose requests the probe itself sent late (its event
 * loop stalled: the machine it runs on was too busy) still was after its repeats, so the probe could not
 * offer that rate as scheduled, and its 429s may be the probe's own burst: nothing about the service.
 */
export type StopReason = 'bracketed' | 'no-limit' | 'saturated' | 'time budget' | 'request cap' | 'generator-bound';

/** Every 429 the probe received, by what its Retry-After was, and the JSON-RPC codes in their bodies. */
export interface On429Tally {
  total: number;
  withRetryAfter: number;
  missing: number;
  malformed: number;
  rpcCodes: number[];
}

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
  retryAfter: RetryAfterFindings & { on429: On429Tally };
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
