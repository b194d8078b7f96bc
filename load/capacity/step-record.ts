/** A judged step as capacity.json keeps it: the figures it was judged on, in req/s and ms, and its verdict with the reason. */
import type { StepPhase, StepRecord } from './capacity-result.js';
import type { StepMeasurement } from './open-model-driver.js';
import type { StepJudgement } from './step-judge.js';

const r3 = (v: number) => Math.round(v * 1000) / 1000;
const r1 = (v: number) => Math.round(v * 10) / 10;

export function stepRecord(index: number, phase: StepPhase, m: StepMeasurement, j: StepJudgement, streaming: boolean): StepRecord {
  const windowS = m.windowMs / 1000;
  const total = m.settled + m.pending;
  const errorsByKind: Record<string, number> = {};
  for (const [k, v] of Object.entries(m.errorsByKind)) if (v) errorsByKind[k] = v;
  return {
    index,
    phase,
    offered: r3(m.offered),
    achieved: r1(windowS > 0 ? m.sent / windowS : 0),
    goodput: r1(windowS > 0 ? m.goodInWindows / windowS : 0),
    completed: r1(windowS > 0 ? m.completedInWindows / windowS : 0),
    windowS: r3(windowS),
    warmupS: r3(m.warmupMs / 1000),
    requests: m.planned,
    latencyMs: { planned: m.latency.summary(), service: m.service.summary() },
    ...(streaming && { ttfpMs: m.ttfp.summary(), ttfrMs: m.ttfr.summary() }),
    errorRate: total > 0 ? r3(m.errors / total) : 0,
    rate429: total > 0 ? r3(m.rateLimited / total) : 0,
    errorsByKind,
    sendLagMs: { p50: r3(m.sendLag.percentile(50)), p99: r3(m.sendLag.percentile(99)), max: r3(m.sendLag.summary().max) },
    inFlight: m.inFlight,
    generator: {
      cpuCores: r3(m.generator.cpuCores),
      eventLoopUtilization: r3(m.generator.eventLoopUtilization),
      eventLoopDelayP99Ms: r3(m.generator.eventLoopDelayP99Ms),
      poolQueuedMax: m.generator.poolQueuedMax,
      ...(m.generator.droppedIterations !== undefined && { droppedIterations: m.generator.droppedIterations }),
    },
    ...(m.serverCpuCores !== undefined && { serverCpuCores: r3(m.serverCpuCores) }),
    ...(m.serverRssMiB !== undefined && { serverRssMiB: r1(m.serverRssMiB) }),
    verdict: j.verdict,
    reason: j.reason,
    terms: j.terms,
  };
}
