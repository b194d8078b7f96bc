/**
 * Small inline SVG charts for the self-contained HTML reports (no script, no external file): a line chart
 * for curves over time or rate, a bar chart for counts. Axes start at zero so shapes are not exaggerated.
 */
import { xmlEscape } from './escape.js';

export interface Series {
  name: string;
  points: Array<[number, number]>;
}

export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  width?: number;
  height?: number;
  /** Dots on every point (for sparse data such as probe steps). */
  markers?: boolean;
  /**
   * `percentile`: x is a percentile (0-100) drawn as HDR histograms draw it, by its nines (50, 90, 99, 99.9,
   * 99.99 equally spaced, the maximum last), so the tail where latency goes wrong takes the width it deserves.
   */
  xScale?: 'linear' | 'percentile';
  /** `log`: powers of ten on the y axis (latency that spans 1 ms to seconds); values at or below 0 are left out. */
  yScale?: 'linear' | 'log';
  /** Reference lines: vertical at an x (a rate found), horizontal at a y (an SLO threshold), dashed, labelled. */
  rules?: Array<{ axis: 'x' | 'y'; at: number; label: string }>;
  /** Points drawn hollow (a step that said nothing about the service), by series name and x. */
  hollow?: (series: string, x: number) => boolean;
}

/** The nines of the percentile axis shown at most (the 99.99th). */
const MAX_NINES = 4;

/** A percentile's place on the HDR axis: log10(100 / (100 - p)), so 90 -> 1, 99 -> 2, 99.9 -> 3 (the maximum has a place of its own). */
function nines(p: number): number {
  return Math.min(MAX_NINES, Math.log10(100 / (100 - Math.max(0, p))));
}

const PERCENTILE_TICKS: Array<[number, string]> = [[0, '0'], [50, '50'], [90, '90'], [99, '99'], [99.9, '99.9'], [99.99, '99.99'], [100, 'max']];

export interface BarChartOptions {
  title: string;
  yLabel: string;
  bars: Array<{ label: string; value: number }>;
  width?: number;
  height?: number;
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const MARGIN = { top: 28, right: 16, bottom: 40, left: 56 };

// SVG is XML: one escaping for every report (titles and labels carry scenario names from the run).
const esc = xmlEscape;

/** A "nice" axis maximum and step (1, 2 or 5 times a power of ten) covering `max` in about 5 ticks. */
export function niceScale(max: number): { max: number; step: number } {
  if (!(max > 0) || !Number.isFinite(max)) return { max: 1, step: 0.2 };
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough)!;
  return { max: Math.ceil(max / step) * step, step };
}

function tickText(value: number): string {
  if (value === 0) return '0';
  if (Math.abs(value) >= 1000) return `${Number((value / 1000).toPrecision(3))}k`;
  return String(Number(value.toPrecision(3)));
}

function frame(o: { title: string; width: number; height: number; xLabel: string; yLabel: string }, body: string, legend: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${esc(o.title)}" width="${o.width}" height="${o.height}" viewBox="0 0 ${o.width} ${o.height}" font-family="sans-serif" font-size="11">`
    + `<title>${esc(o.title)}</title>`
    + `<text x="${o.width / 2}" y="16" text-anchor="middle" font-size="13" font-weight="bold">${esc(o.title)}</text>`
    + `<text x="${MARGIN.left + (o.width - MARGIN.left - MARGIN.right) / 2}" y="${o.height - 6}" text-anchor="middle">${esc(o.xLabel)}</text>`
    + `<text transform="translate(12 ${MARGIN.top + (o.height - MARGIN.top - MARGIN.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`
    + body + legend + '</svg>';
}

function yAxis(yMax: number, step: number, plotW: number, plotH: number): string {
  let out = '';
  for (let v = 0; v <= yMax + step / 2; v += step) {
    const y = MARGIN.top + plotH - (v / yMax) * plotH;
    out += `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#ddd"/>`
      + `<text x="${MARGIN.left - 4}" y="${(y + 4).toFixed(1)}" text-anchor="end">${tickText(v)}</text>`;
  }
  return out;
}

export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? 640;
  const height = o.height ?? 280;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const log = o.yScale === 'log';
  const usable = ([x, y]: [number, number]) => Number.isFinite(x) && Number.isFinite(y) && (!log || y > 0);
  const all = o.series.flatMap((s) => s.points).filter(usable);
  const ruleYs = (o.rules ?? []).filter((r) => r.axis === 'y' && (!log || r.at > 0)).map((r) => r.at);
  let py: (y: number) => number;
  let body: string;
  if (log) {
    const values = [...all.map(([, y]) => y), ...ruleYs];
    const lo = Math.floor(Math.log10(Math.min(...values, 1)));
    const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...values, 1))));
    py = (y: number) => MARGIN.top + plotH - ((Math.log10(y) - lo) / (hi - lo)) * plotH;
    body = '';
    for (let e = lo; e <= hi; e++) {
      const y = py(10 ** e);
      body += `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#ddd"/>`
        + `<text x="${MARGIN.left - 4}" y="${(y + 4).toFixed(1)}" text-anchor="end">${tickText(10 ** e)}</text>`;
    }
  } else {
    const ys = niceScale(Math.max(0, ...all.map(([, y]) => y), ...ruleYs));
    py = (y: number) => MARGIN.top + plotH - (y / ys.max) * plotH;
    body = yAxis(ys.max, ys.step, plotW, plotH);
  }
  let px: (x: number) => number;
  if (o.xScale === 'percentile') {
    // At least to the 99th: a run of few responses still shows where its tail would be. The maximum goes
    // half a step beyond the last percentile drawn.
    const last = Math.max(2, ...all.filter(([x]) => x < 100).map(([x]) => nines(x)));
    const hasMax = all.some(([x]) => x >= 100);
    const at = (x: number) => (x >= 100 ? last + 0.5 : Math.min(nines(x), last));
    px = (x: number) => MARGIN.left + (at(x) / (hasMax ? last + 0.5 : last)) * plotW;
    for (const [p, label] of PERCENTILE_TICKS.filter(([p]) => (p >= 100 ? hasMax : nines(p) <= last + 1e-9))) {
      body += `<text x="${px(p).toFixed(1)}" y="${MARGIN.top + plotH + 14}" text-anchor="middle">${label}</text>`;
    }
  } else {
    const xs = niceScale(Math.max(0, ...all.map(([x]) => x), ...(o.rules ?? []).filter((r) => r.axis === 'x').map((r) => r.at)));
    px = (x: number) => MARGIN.left + (x / xs.max) * plotW;
    for (let v = 0; v <= xs.max + xs.step / 2; v += xs.step) {
      body += `<text x="${px(v).toFixed(1)}" y="${MARGIN.top + plotH + 14}" text-anchor="middle">${tickText(v)}</text>`;
    }
  }
  body += `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#333"/>`;
  for (const r of o.rules ?? []) {
    if (r.axis === 'y' && log && r.at <= 0) continue;
    const line = r.axis === 'x'
      ? { x1: px(r.at), x2: px(r.at), y1: MARGIN.top, y2: MARGIN.top + plotH, tx: px(r.at) + 3, ty: MARGIN.top + 12, anchor: 'start' }
      : { x1: MARGIN.left, x2: MARGIN.left + plotW, y1: py(r.at), y2: py(r.at), tx: MARGIN.left + plotW - 2, ty: py(r.at) - 3, anchor: 'end' };
    body += `<line x1="${line.x1.toFixed(1)}" x2="${line.x2.toFixed(1)}" y1="${line.y1.toFixed(1)}" y2="${line.y2.toFixed(1)}" stroke="#555" stroke-dasharray="4 3"><title>${esc(r.label)}</title></line>`
      + `<text x="${line.tx.toFixed(1)}" y="${line.ty.toFixed(1)}" text-anchor="${line.anchor}" fill="#555">${esc(r.label)}</text>`;
  }
  o.series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const pts = s.points.filter(usable);
    if (pts.length === 0) return;
    body += `<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${pts.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"><title>${esc(s.name)}</title></polyline>`;
    if (o.markers) {
      for (const [x, y] of pts) {
        const fill = o.hollow?.(s.name, x) ? `fill="#fff" stroke="${colour}"` : `fill="${colour}"`;
        body += `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="2.5" ${fill}><title>${esc(`${s.name}: ${tickText(x)}, ${tickText(y)}`)}</title></circle>`;
      }
    }
  });
  const legend = o.series.map((s, i) => {
    const x = MARGIN.left + 8 + i * 130;
    return `<rect x="${x}" y="${MARGIN.top - 2}" width="10" height="3" fill="${COLOURS[i % COLOURS.length]}"/><text x="${x + 14}" y="${MARGIN.top + 2}">${esc(s.name)}</text>`;
  }).join('');
  return frame({ title: o.title, width, height, xLabel: o.xLabel, yLabel: o.yLabel }, body, legend);
}

export function barChart(o: BarChartOptions): string {
  const width = o.width ?? 640;
  const height = o.height ?? 240;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const ys = niceScale(Math.max(0, ...o.bars.map((b) => b.value)));
  let body = yAxis(ys.max, ys.step, plotW, plotH);
  const slot = plotW / Math.max(1, o.bars.length);
  o.bars.forEach((b, i) => {
    const h = (Math.max(0, b.value) / ys.max) * plotH;
    const x = MARGIN.left + i * slot + slot * 0.15;
    body += `<rect x="${x.toFixed(1)}" y="${(MARGIN.top + plotH - h).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLOURS[i % COLOURS.length]}"><title>${esc(`${b.label}: ${b.value}`)}</title></rect>`
      + `<text x="${(x + slot * 0.35).toFixed(1)}" y="${MARGIN.top + plotH + 14}" text-anchor="middle">${esc(b.label)}</text>`;
  });
  body += `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#333"/>`;
  return frame({ title: o.title, width, height, xLabel: '', yLabel: o.yLabel }, body, '');
}
