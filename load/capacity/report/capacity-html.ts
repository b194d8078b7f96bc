/**
 * capacity.html: the capacity run for a person, self-contained (inline SVG, no script); `renderCapacitySection`
 * is the fragment report.html embeds. Per scenario two plots against the offered rate, the steps sorted by it
 * (the search visits them out of order): achieved rate and goodput (with the line where they would equal the
 * offered rate), and latency from the planned send, p50 and p99 on a log axis, with the service time's p99, the
 * SLO's threshold and the sustained and breaking rates marked. A step that said nothing about the service
 * (invalid, rate-limited) is drawn hollow.
 */
import { htmlEscape as h } from '../../../src/kit/escape.js';
import { fmt } from '../../../src/kit/numbers.js';
import { lineChart, type Series } from '../../../src/kit/svg-chart.js';
import { BODY, PALETTE, sectionStyle } from '../../../src/kit/page-style.js';
import type { CapacityReport, ScenarioCapacity, StepRecord } from '../capacity-result.js';
import { parseSlo } from '../slo.js';
import { capacityWord, rateNumber, rateText } from './capacity-word.js';

export const CAPACITY_HTML = 'capacity.html';

const OWN = `
.capacity-report th, .capacity-report td { text-align: right; }
.capacity-report th:first-child, .capacity-report td:first-child, .capacity-report td.why { text-align: left; }
.capacity-report .charts { display: flex; flex-wrap: wrap; gap: 12px; }
.capacity-report td.invalid, .capacity-report td.uncertain, .capacity-report td.rate-limited { color: var(--warn); }
`;
const STYLE = `${sectionStyle('.capacity-report')}${OWN}`;

/** One point per offered rate (the last step run at it: a confirmation supersedes), sorted by rate. */
function byRate(steps: StepRecord[]): StepRecord[] {
  const last = new Map<number, StepRecord>();
  for (const s of steps) last.set(s.offered, s);
  return [...last.values()].sort((a, b) => a.offered - b.offered);
}

function marks(s: ScenarioCapacity): Array<{ axis: 'x'; at: number; label: string }> {
  return [
    ...(s.sustained !== null ? [{ axis: 'x' as const, at: s.sustained, label: `sustained ${fmt(s.sustained)}` }] : []),
    ...(s.broke !== null ? [{ axis: 'x' as const, at: s.broke, label: `broke ${fmt(s.broke)}` }] : []),
  ];
}

export function throughputPlot(s: ScenarioCapacity): string {
  const steps = byRate(s.steps);
  const hollow = new Set(steps.filter((st) => st.verdict === 'invalid' || st.verdict === 'rate-limited').map((st) => st.offered));
  const series: Series[] = [
    { name: 'achieved', points: steps.map((st) => [st.offered, st.achieved]) },
    { name: 'goodput', points: steps.map((st) => [st.offered, st.goodput]) },
    { name: 'offered (y = x)', points: steps.length ? [[0, 0], [steps.at(-1)!.offered, steps.at(-1)!.offered]] : [] },
  ];
  return lineChart({ title: `${s.scenario}: offered vs achieved`, xLabel: 'offered rate, req/s', yLabel: 'req/s', series, markers: true, width: 520, height: 280, rules: marks(s), hollow: (_, x) => hollow.has(x) });
}

export function latencyPlot(s: ScenarioCapacity): string {
  const steps = byRate(s.steps);
  const hollow = new Set(steps.filter((st) => st.verdict === 'invalid' || st.verdict === 'rate-limited').map((st) => st.offered));
  const series: Series[] = [
    { name: 'p50 (planned send)', points: steps.map((st) => [st.offered, st.latencyMs.planned.p50]) },
    { name: 'p99 (planned send)', points: steps.map((st) => [st.offered, st.latencyMs.planned.p99]) },
    { name: 'p99 (service time)', points: steps.map((st) => [st.offered, st.latencyMs.service.p99]) },
    ...(s.streaming ? [
      { name: 'TTFP p99', points: steps.map((st): [number, number] => [st.offered, st.ttfpMs?.p99 ?? NaN]) },
      { name: 'TTFR p99', points: steps.map((st): [number, number] => [st.offered, st.ttfrMs?.p99 ?? NaN]) },
    ] : []),
  ];
  let thresholds: Array<{ axis: 'y'; at: number; label: string }> = [];
  try {
    thresholds = parseSlo(s.slo).terms.flatMap((t) => (t.kind === 'latency' ? [{ axis: 'y' as const, at: t.thresholdMs, label: `SLO ${t.text}` }] : []));
  } catch {
    // An SLO this version cannot read (a newer report): no line.
  }
  return lineChart({ title: `${s.scenario}: latency by offered rate`, xLabel: 'offered rate, req/s', yLabel: 'ms (log)', series, markers: true, width: 520, height: 280, yScale: 'log', rules: [...marks(s), ...thresholds], hollow: (_, x) => hollow.has(x) });
}

function stepsTable(s: ScenarioCapacity): string {
  const head = ['#', 'phase', 'offered', 'achieved', 'goodput', 'p50', 'p99', 'service p99', ...(s.streaming ? ['TTFP p99', 'TTFR p99'] : []), 'errors', '429', 'lag p99', 'gen. CPU', ...(s.steps.some((st) => st.serverCpuCores !== undefined) ? ['server CPU'] : []), 'verdict', 'why'];
  const serverCol = s.steps.some((st) => st.serverCpuCores !== undefined);
  const rows = s.steps.map((st) => `<tr><td>${st.index}</td><td>${st.phase}</td><td>${fmt(st.offered)}</td><td>${fmt(st.achieved)}</td><td>${fmt(st.goodput)}</td>`
    + `<td>${fmt(st.latencyMs.planned.p50)}</td><td>${fmt(st.latencyMs.planned.p99)}</td><td>${fmt(st.latencyMs.service.p99)}</td>`
    + (s.streaming ? `<td>${fmt(st.ttfpMs?.p99 ?? 0)}</td><td>${fmt(st.ttfrMs?.p99 ?? 0)}</td>` : '')
    + `<td>${fmt(st.errorRate * 100)} %</td><td>${fmt(st.rate429 * 100)} %</td><td>${fmt(st.sendLagMs.p99)}</td><td>${fmt(st.generator.cpuCores)}</td>`
    + (serverCol ? `<td>${st.serverCpuCores === undefined ? '' : fmt(st.serverCpuCores)}</td>` : '')
    + `<td class="${st.verdict === 'pass' ? 'ok' : st.verdict === 'fail' ? 'fail' : h(st.verdict)}">${h(st.verdict)}</td><td class="why">${h(st.reason)}</td></tr>`).join('\n');
  return `<table><tr>${head.map((c) => `<th>${h(c)}</th>`).join('')}</tr>\n${rows}</table>`;
}

function scenarioBlock(s: ScenarioCapacity): string {
  const notes = [
    s.baseline ? `Low-rate baseline (lone requests): service time p50 ${fmt(s.baseline.serviceP50Ms)} ms, max ${fmt(s.baseline.serviceP99Ms)} ms.` : '',
    s.overload ? `Overload: ${s.overload.over.summary}. Recovery: ${s.overload.recovery.summary}.` : '',
    s.soak ? `Soak: ${s.soak.drift.summary}.` : '',
    s.rateLimit ? `Rate limit: 429s from ${fmt(s.rateLimit.firstAt)} req/s${s.rateLimit.heldUpTo !== undefined ? `, none up to ${fmt(s.rateLimit.heldUpTo)} req/s` : ''}; ${s.rateLimit.hint}.` : '',
    `Spent: ${s.requests} requests in ${fmt(s.durationS)} s.`,
  ].filter(Boolean);
  return `<h3>${h(s.scenario)}: ${h(rateText(s.sustained, s.bound))} <span class="muted">(bound ${h(s.bound)}, SLO <code>${h(s.slo)}</code>)</span></h3>\n`
    + `<p>${h(s.summary)}</p>\n<div class="charts">${throughputPlot(s)}${latencyPlot(s)}</div>\n`
    + `${notes.map((n) => `<p class="muted">${h(n)}</p>`).join('\n')}\n${stepsTable(s)}\n`;
}

export function renderCapacitySection(report: CapacityReport): string {
  const word = capacityWord(report);
  const rows = report.scenarios.map((s) => `<tr><td>${h(s.scenario)}</td><td><code>${h(s.slo)}</code></td><td>${h(rateText(s.sustained, s.bound))}</td><td>${s.broke === null ? '' : `${rateNumber(s.broke)} req/s`}</td><td>${h(s.bound)}</td></tr>`).join('\n');
  return `<section class="capacity-report">\n<style>${STYLE}</style>\n`
    + `<h2>Capacity: <span class="${word === 'PASS' ? 'ok' : 'fail'}">${word}</span></h2>\n`
    + (report.noAnswer ? `<p class="fail">No sound answer: ${h(report.noAnswer)}</p>\n` : '')
    + `<p class="muted">Target ${h(report.target.description)}; ${h(report.driver)} driver, ${h(report.arrivals)} arrivals, latency from the planned send; started ${h(report.startedAt)}. `
    + `Generator: ${h(report.calibration.note)}. Spent ${report.spent.requests} requests in ${fmt(report.spent.durationS)} s.</p>\n`
    + `<table><tr><th>scenario</th><th>SLO</th><th>sustained</th><th>broke</th><th>bound</th></tr>\n${rows}</table>\n`
    + (report.findings.length ? `<ul>${report.findings.map((f) => `<li>${h(f)}</li>`).join('')}</ul>\n` : '')
    + report.scenarios.map(scenarioBlock).join('')
    + '</section>\n';
}

export function renderCapacityHtml(report: CapacityReport): string {
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Capacity: ${capacityWord(report)} (${h(report.target.description)})</title>\n`
    + `<meta name="viewport" content="width=device-width, initial-scale=1">\n<style>${PALETTE}\n${BODY}</style>\n</head>\n<body>\n`
    + renderCapacitySection(report)
    + '</body>\n</html>\n';
}
