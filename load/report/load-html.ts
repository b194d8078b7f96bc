/**
 * load.html: the load run for a person, self-contained (inline SVG, no script). `renderLoadSection` is the
 * fragment (a <section> with its own scoped style), so the report folder's report.html (src/reports/folder) embeds it as is.
 * Per scenario: the latency percentiles (and, for streaming, first event and result), throughput and
 * errors per second over the run, and errors by kind.
 */
import { htmlEscape as h } from '../../src/kit/escape.js';
import { fmt, pct } from '../../src/kit/numbers.js';
import { barChart, lineChart } from '../../src/kit/svg-chart.js';
import { BODY, PALETTE, sectionStyle } from '../../src/kit/page-style.js';
import { errorKindsSeen, loadWord, type LoadReport, type ScenarioResult } from './load-results.js';
import { intervalText } from './thresholds.js';

export const LOAD_HTML = 'load.html';

/** What only the load section adds to the shared look (src/kit/page-style.ts): numbers right-aligned, charts side by side. */
const OWN = `
.load-report th, .load-report td { text-align: right; }
.load-report th:first-child, .load-report td:first-child { text-align: left; }
.load-report .charts { display: flex; flex-wrap: wrap; gap: 12px; }
`;
const STYLE = `${sectionStyle('.load-report')}${OWN}`;

function latencyChart(s: ScenarioResult): string {
  const series = [{ name: 'response', points: s.latencyDistribution }];
  const st = s.streaming;
  if (st) {
    const pts = (p: { p50: number; p90: number; p99: number; max: number; samples: number }): Array<[number, number]> =>
      p.samples === 0 ? [] : [[50, p.p50], [90, p.p90], [99, p.p99], [100, p.max]];
    series.push({ name: 'first event', points: pts(st.timeToFirstEventMs) }, { name: 'result', points: pts(st.timeToResultMs) });
  }
  return lineChart({ title: `${s.name}: latency percentiles`, xLabel: 'percentile (by nines: 90, 99, 99.9...)', yLabel: 'ms', series, markers: true, width: 520, height: 260, xScale: 'percentile' });
}

function throughputChart(s: ScenarioResult): string {
  return lineChart({
    title: `${s.name}: throughput over time`,
    xLabel: 'seconds since start',
    yLabel: 'per second',
    // The point of a bucket [t, t+1) is drawn at its end.
    series: [
      { name: 'responses/s', points: s.throughput.map((t) => [t.second + 1, t.responses]) },
      { name: 'errors/s', points: s.throughput.map((t) => [t.second + 1, t.errors]) },
    ],
    markers: s.throughput.length <= 20,
    width: 520,
    height: 260,
  });
}

function errorsChart(s: ScenarioResult): string {
  const seen = errorKindsSeen(s);
  if (seen.length === 0) return '<p class="ok">No errors.</p>';
  return barChart({ title: `${s.name}: errors by kind`, yLabel: 'errors', bars: seen.map(([label, value]) => ({ label, value })), width: 520, height: 240 });
}

function scenarioBlock(load: LoadReport, s: ScenarioResult): string {
  const l = s.latencyMs;
  const c = load.baseline?.scenarios.find((b) => b.name === s.name);
  const rows = [
    ['requests per second', fmt(s.requestsPerSecond)],
    ['responses', `${s.requests} (${s.requestsSent} sent) in ${fmt(s.durationS)} s`],
    ['latency p50 / p90 / p99 / max / mean', `${[l.p50, l.p90, l.p99, l.max, l.mean].map((v) => fmt(v)).join(' / ')} ms`],
    ['errors', `${s.errors} (rate ${fmt(s.errorRate)})`],
    ['status codes', Object.entries(s.statusCodes).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none'],
    ...(s.byRequest.length > 1 ? [['by request', s.byRequest.map((r) => `${r.name} ${r.responses}${r.errors ? ` (${r.errors} errors)` : ''}`).join(', ')]] : []),
    ...(s.streaming ? [
      ['streaming responses, progress min / mean / max', `${s.streaming.responses}, ${s.streaming.progressEvents.min} / ${fmt(s.streaming.progressEvents.mean)} / ${s.streaming.progressEvents.max}`],
      ['time to first event p50 / p90 / p99 / max', `${[s.streaming.timeToFirstEventMs.p50, s.streaming.timeToFirstEventMs.p90, s.streaming.timeToFirstEventMs.p99, s.streaming.timeToFirstEventMs.max].map((v) => fmt(v)).join(' / ')} ms`],
      ['time to result p50 / p90 / p99 / max', `${[s.streaming.timeToResultMs.p50, s.streaming.timeToResultMs.p90, s.streaming.timeToResultMs.p99, s.streaming.timeToResultMs.max].map((v) => fmt(v)).join(' / ')} ms`],
    ] : []),
    ...(c && !c.paired ? [['vs baseline', `req/s ${pct(c.requestsPerSecond.changePct)} (was ${fmt(c.requestsPerSecond.baseline)}), p99 ${pct(c.p99.changePct)} (was ${fmt(c.p99.baseline)} ms)`]] : []),
    ...(c?.paired ? [['vs baseline, in pairs of rounds', intervalText(c)]] : []),
  ];
  return `<h3>${h(s.name)}</h3>\n<p class="muted">${h(s.description)}</p>\n`
    + `<table>${rows.map(([k, v]) => `<tr><th>${h(k!)}</th><td>${h(v!)}</td></tr>`).join('')}</table>\n`
    + `<div class="charts">${latencyChart(s)}${throughputChart(s)}${errorsChart(s)}</div>\n`;
}

/** The load run as an HTML fragment: embeddable in another report (its style is scoped to .load-report). */
export function renderLoadSection(load: LoadReport): string {
  const failed = load.thresholds.filter((t) => !t.ok).length;
  const rate = load.settings.rate === null ? 'closed loop' : `fixed arrival rate ${load.settings.rate} req/s`;
  const summary = load.scenarios.map((s) => `<tr><td>${h(s.name)}</td><td>${fmt(s.requestsPerSecond)}</td><td>${fmt(s.latencyMs.p50)}</td><td>${fmt(s.latencyMs.p90)}</td>`
    + `<td>${fmt(s.latencyMs.p99)}</td><td>${fmt(s.latencyMs.max)}</td><td class="${s.errors ? 'fail' : 'ok'}">${s.errors}</td></tr>`).join('\n');
  const thresholds = load.thresholds.map((t) => `<li class="${t.ok ? 'ok' : 'fail'}">${t.ok ? '✓' : '✗'} ${h(t.scenario)}: <code>${h(t.expression)}</code>, actual ${t.actual === null ? 'not measured' : fmt(t.actual, 4)}${t.note ? ` (${h(t.note)})` : ''}</li>`).join('\n');
  return `<section class="load-report">\n<style>${STYLE}</style>\n`
    + `<h2>Load: <span class="${load.exitCode === 0 ? 'ok' : 'fail'}">${loadWord(load)}</span></h2>\n`
    + `<p>${h(load.verdict)}</p>\n`
    + `<p class="muted">Target ${h(load.target.description)}; autocannon, ${load.settings.connections} connections, ${load.settings.durationS} s per scenario, ${h(rate)}; `
    + `${load.machine.cpus} × ${h(load.machine.model)}, Node ${h(load.machine.node)}; started ${h(load.startedAt)}. `
    + `Latency: each response's own time at microsecond resolution. Streaming timings: ${h(load.settings.streamingTiming)}.</p>\n`
    + `<table><tr><th>scenario</th><th>req/s</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th><th>errors</th></tr>\n${summary}</table>\n`
    + `<h3>Thresholds (${load.thresholds.length - failed} of ${load.thresholds.length} hold)</h3>\n<ul>\n${thresholds}\n</ul>\n`
    + load.scenarios.map((s) => scenarioBlock(load, s)).join('')
    + '</section>\n';
}

export function renderLoadHtml(load: LoadReport): string {
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Load: ${loadWord(load)} (${h(load.target.description)})</title>\n`
    + `<meta name="viewport" content="width=device-width, initial-scale=1">\n<style>${PALETTE}\n${BODY}</style>\n</head>\n<body>\n`
    + renderLoadSection(load)
    + '</body>\n</html>\n';
}
