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

  it('draws percentiles by their nines (HDR style): 90, 99, 99.9 equally spaced, the maximum last', () => {
    const svg = lineChart({ title: 'latency', xLabel: 'percentile', yLabel: 'ms', xScale: 'percentile', series: [{ name: 'r', points: [[50, 1], [90, 2], [99, 3], [99.9, 9], [100, 40]] }] });
    const tick = (label: string) => Number(new RegExp(`<text x="([\\d.]+)" y="[\\d.]+" text-anchor="middle">${label.replace('.', '\\.')}</text>`).exec(svg)?.[1]);
    const [t0, t90, t99, t999, tmax] = ['0', '90', '99', '99.9', 'max'].map(tick);
    expect(t90! - t0!).toBeCloseTo(t99! - t90!, 0);
    expect(t999! - t99!).toBeCloseTo(t99! - t90!, 0);
    expect(tmax).toBeGreaterThan(t999!);
    // No tick beyond what the data reaches: 99.99 is not drawn for data that ends at 99.9 and the max.
    expect(svg).not.toContain('>99.99<');
  });

  it('draws a bar per value, with zero-height bars for zero', () => {
    const svg = barChart({ title: 'errors', yLabel: 'count', bars: [{ label: 'http-5xx', value: 5 }, { label: 'timeout', value: 0 }] });
    expect(svg.match(/<rect x=/g)).toHaveLength(2);
    expect(svg).toContain('height="0.0"');
  });
});
