/**
 * capacity.md: GitHub-flavoured Markdown for a job summary or a pull-request comment. The verdict first, one
 * row per scenario (sustained, broke, bound), then each scenario's steps in the order they ran, the overload,
 * recovery and soak, the findings and what the run spent.
 */
import { mdRow as row, mdText } from '../../../src/kit/markdown.js';
import { fmt } from '../../../src/kit/numbers.js';
import type { CapacityReport, ScenarioCapacity } from '../capacity-result.js';
import { capacityWord, rateNumber, rateText } from './capacity-word.js';

export const CAPACITY_MD = 'capacity.md';

const share = (v: number) => `${fmt(v * 100, 3)} %`;

function steps(s: ScenarioCapacity): string[] {
  const out = [row(['#', 'phase', 'offered', 'achieved', 'goodput', 'p50 ms', 'p99 ms', 'service p99 ms', ...(s.streaming ? ['TTFP p99', 'TTFR p99'] : []), 'errors', '429', 'send lag p99', 'verdict', 'why'])];
  out.push(row(['---:', '---', '---:', '---:', '---:', '---:', '---:', '---:', ...(s.streaming ? ['---:', '---:'] : []), '---:', '---:', '---:', '---', '---']));
  for (const st of s.steps) {
    out.push(row([
      String(st.index), st.phase, fmt(st.offered), fmt(st.achieved), fmt(st.goodput), fmt(st.latencyMs.planned.p50), fmt(st.latencyMs.planned.p99), fmt(st.latencyMs.service.p99),
      ...(s.streaming ? [fmt(st.ttfpMs?.p99 ?? 0), fmt(st.ttfrMs?.p99 ?? 0)] : []),
      share(st.errorRate), share(st.rate429), fmt(st.sendLagMs.p99), st.verdict === 'pass' ? 'pass' : `**${st.verdict}**`, mdText(st.reason),
    ]));
  }
  return out;
}

export function renderCapacityMd(report: CapacityReport): string {
  const out: string[] = [];
  const word = capacityWord(report);
  out.push(`## Capacity: ${word}`, '');
  if (report.noAnswer) out.push(`No sound answer: ${mdText(report.noAnswer)}`, '');
  out.push(`Target ${mdText(report.target.description)}; ${report.driver} driver, ${report.arrivals} arrivals (latency from the planned send); `
    + `steps x2 from ${report.options.startRate} req/s up to ${report.options.maxRate}, bisection to ${report.options.tolerancePct} %; started ${report.startedAt}. `
    + `Generator: ${mdText(report.calibration.note)}.`, '');
  out.push(row(['scenario', 'SLO', 'sustained', 'broke', 'bound', 'summary']));
  out.push(row(['---', '---', '---:', '---:', '---', '---']));
  for (const s of report.scenarios) out.push(row([mdText(s.scenario), `\`${s.slo}\``, rateText(s.sustained, s.bound), s.broke === null ? '' : `${rateNumber(s.broke)} req/s`, s.bound, mdText(s.summary)]));
  out.push('');
  for (const s of report.scenarios) {
    out.push(`### ${mdText(s.scenario)}`, '');
    if (s.baseline) out.push(`Low-rate baseline (lone requests): service time p50 ${fmt(s.baseline.serviceP50Ms)} ms, max ${fmt(s.baseline.serviceP99Ms)} ms.`, '');
    out.push(...steps(s), '');
    if (s.overload) out.push(`- Overload: ${mdText(s.overload.over.summary)}`, `- Recovery: ${mdText(s.overload.recovery.summary)}`);
    if (s.soak) out.push(`- Soak: ${mdText(s.soak.drift.summary)}`);
    if (s.rateLimit) out.push(`- Rate limit: 429s from ${fmt(s.rateLimit.firstAt)} req/s${s.rateLimit.heldUpTo !== undefined ? `, none up to ${fmt(s.rateLimit.heldUpTo)} req/s` : ''}; ${mdText(s.rateLimit.hint)}`);
    out.push(`- Spent: ${s.requests} requests in ${fmt(s.durationS)} s`, '');
  }
  if (report.findings.length > 0) out.push('### Findings', '', ...report.findings.map((f) => `- ${mdText(f)}`), '');
  out.push(`Spent in all: ${report.spent.requests} requests in ${fmt(report.spent.durationS)} s.`, '');
  return out.join('\n');
}
