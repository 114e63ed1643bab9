import { describe, expect, it } from 'vitest';
import {
  engineBars,
  groupedBars,
  niceTicks,
  shareBars,
  stackedBars,
  stackedHistory,
} from '../../src/report/charts/bars.js';
import { scaledTicks, trendChart } from '../../src/report/charts/lines.js';

const hostile = '<script>alert(1)</script>"&\'';
const widths = (svg: string) =>
  [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)"/g)].map((m) => Number(m[1]));

describe('hand-drawn bar charts', () => {
  it('print API strings as text, never markup, in labels and legends', () => {
    const charts = [
      shareBars([{ name: hostile, value: 30, isBrand: true }], 10, { title: hostile }),
      engineBars([{ label: hostile, color: '"><script>', value: 12 }], { title: hostile }),
      stackedBars([hostile], [{ name: hostile, color: '#1F4E79', values: [100] }], { title: hostile }),
      stackedHistory([hostile], [{ name: hostile, color: 'red;x', values: [100] }], { title: hostile }),
      groupedBars([hostile], [{ name: hostile, color: '#1F4E79', values: [5] }], { title: hostile }),
      trendChart([hostile, 'b'], [{ name: hostile, color: 'red;x', values: [5, 6] }], { title: hostile }),
    ];
    for (const svg of charts) {
      expect(svg).not.toContain('<script');
      expect(svg).not.toContain('red;x');
      expect(svg).toContain('&#60;script');
      // A color that is not #RRGGBB never reaches an attribute.
      expect(svg).not.toMatch(/fill="(?!#[0-9A-Fa-f]{6}"|none")/);
    }
  });

  it('draws bar lengths in proportion to their values', () => {
    const svg = engineBars(
      [
        { label: 'A', color: '#111111', value: 40 },
        { label: 'B', color: '#222222', value: 10 },
      ],
      { title: 'References' },
    );
    const [a, b] = widths(svg);
    expect(a! / b!).toBeCloseTo(4, 1);
    expect(svg).toContain('40.0%');
  });

  it('picks round axis steps like ECharts did', () => {
    expect(niceTicks(100)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(120)).toEqual([0, 20, 40, 60, 80, 100, 120]);
    expect(niceTicks(32.4).at(-1)).toBe(35);
    expect(niceTicks(0)).toEqual([0, 1]);
  });

  it('scales the trend axis around the data and writes the last value at the line end', () => {
    expect(scaledTicks(38, 58)).toEqual([35, 40, 45, 50, 55, 60]);
    expect(scaledTicks(7, 7)[0]).toBeLessThan(7);
    const svg = trendChart(['W1', 'W2'], [{ name: 'Gross', color: '#4F8FC0', values: [51.2, 58] }], {
      title: 'Trend',
    });
    expect(svg).toContain('>58.0%</text>');
    expect(svg).toMatch(/<polyline points="[\d.]+,[\d.]+ [\d.]+,[\d.]+"/);
  });
});
