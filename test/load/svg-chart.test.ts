import { describe, expect, it } from 'vitest';
import { barChart, lineChart, niceScale } from '../../src/kit/svg-chart.js';

describe('svg charts', () => {
  it('picks axis maxima of 1, 2 or 5 times a power of ten that cover the data', () => {
    expect(niceScale(0)).toEqual({ max: 1, step: 0.2 });
    expect(niceScale(7)).toEqual({ max: 8, step: 2 });
    expect(niceScale(1234)).toEqual({ max: 1500, step: 500 });
    for (const v of [0.003, 0.9, 13, 999, 25_000]) expect(niceScale(v).max).toBeGreaterThanOrEqual(v);
  });

  it('draws one polyline per series, markers on request, and escapes text', () => {
    const svg = lineChart({
      title: 'p99 <ms> & more',
      xLabel: 's',
      yLabel: 'ms',
      markers: true,
      series: [{ name: 'a', points: [[0, 1], [1, 2], [2, Number.NaN]] }, { name: 'b', points: [[0, 3]] }],
    });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(2);
    expect(svg.match(/<circle/g)).toHaveLength(3);
    expect(svg).toContain('p99 &lt;ms&gt; &amp; more');
    expect(svg).not.toContain('NaN');
  });

  it('draws a bar per value, with zero-height bars for zero', () => {
    const svg = barChart({ title: 'errors', yLabel: 'count', bars: [{ label: 'http-5xx', value: 5 }, { label: 'timeout', value: 0 }] });
    expect(svg.match(/<rect x=/g)).toHaveLength(2);
    expect(svg).toContain('height="0.0"');
  });
});
