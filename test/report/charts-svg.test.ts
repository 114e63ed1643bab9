import { describe, expect, it } from 'vitest';
import { donut } from '../../src/report/charts/donut.js';
import { heatmap } from '../../src/report/charts/heatmap.js';
import { trendChart } from '../../src/report/charts/lines.js';
import { lifeScatter, ticksWithin } from '../../src/report/charts/scatter.js';
import { textWidth } from '../../src/report/charts/svg.js';

const hostile = '<script>alert(1)</script>"&\'';

/** Every `<text>` of a chart: where it is anchored, how it is aligned, what it says. */
const texts = (svg: string) =>
  [
    ...svg.matchAll(
      /<text x="([\d.-]+)" y="([\d.-]+)"[^>]*text-anchor="(\w+)" font-size="(\d+)"[^>]*>([^<]*)<\/text>/g,
    ),
  ].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    anchor: m[3] as string,
    size: Number(m[4]),
    content: (m[5] as string).replace(/&#\d+;/g, 'x'),
  }));
const span = (label: ReturnType<typeof texts>[number]) => {
  const w = textWidth(label.content, label.size);
  const left = label.anchor === 'start' ? label.x : label.anchor === 'end' ? label.x - w : label.x - w / 2;
  return { left, right: left + w };
};

describe('hand-drawn heatmap, donut and scatter', () => {
  it('print API strings as text, never markup, and only #RRGGBB colors', () => {
    const charts = [
      heatmap([hostile], [hostile], [[42]], { title: hostile }),
      donut(
        [
          { name: hostile, value: 60, color: '"><script>' },
          { name: 'b', value: 40, color: '#4F8FC0' },
        ],
        { title: hostile },
      ),
      lifeScatter(
        [{ label: hostile, presence: 30, life: 55, icv: 100 }],
        { presence: 30, life: 55 },
        { title: hostile },
      ),
    ];
    for (const svg of charts) {
      expect(svg).not.toContain('<script');
      expect(svg).toContain('&#60;script');
      expect(svg).not.toMatch(/(fill|stroke)="(?!#[0-9A-Fa-f]{6}"|none")/);
    }
  });

  it('colors higher heatmap values darker, writes every value and leaves empty cells blank', () => {
    const svg = heatmap(
      ['ChatGPT', 'Gemini'],
      ['a', 'b'],
      [
        [10, 90],
        [null, 50],
      ],
      { title: 'Matrix' },
    );
    const fills = [...svg.matchAll(/<rect [^>]*fill="#([0-9A-F]{6})"/g)].map((m) => m[1] as string);
    expect(fills).toHaveLength(3);
    const lightness = (hex: string) =>
      Number.parseInt(hex.slice(0, 2), 16) + Number.parseInt(hex.slice(2, 4), 16);
    expect(lightness(fills[0]!)).toBeGreaterThan(lightness(fills[2]!));
    expect(lightness(fills[2]!)).toBeGreaterThan(lightness(fills[1]!));
    expect(texts(svg).map((t) => t.content)).toEqual(expect.arrayContaining(['10.0%', '90.0%', '50.0%']));
    // The darkest cell's label is white, the lightest's is ink: both legible.
    expect(svg).toMatch(/fill="#FFFFFF"[^>]*>90\.0%/);
    expect(svg).not.toMatch(/fill="#FFFFFF"[^>]*>10\.0%/);
  });

  it('sweeps donut sectors in proportion to the parts and labels no empty part', () => {
    const svg = donut(
      [
        { name: 'Owned', value: 25, color: '#1F4E79' },
        { name: 'Partner', value: 0, color: '#4F8FC0' },
        { name: 'External', value: 75, color: '#B8C0CC' },
      ],
      { title: 'Sources' },
    );
    const paths = [...svg.matchAll(/<path d="M([\d.]+) ([\d.]+)A[\d.]+ [\d.]+ 0 (\d) 1 ([\d.]+) ([\d.]+)/g)];
    expect(paths).toHaveLength(2);
    // A quarter from twelve o'clock ends at three o'clock (same height as the centre); the rest is large.
    const [quarter, rest] = paths;
    expect(quarter![3]).toBe('0');
    expect(rest![3]).toBe('1');
    expect(Number(quarter![5])).toBeCloseTo(200 * 0.45, 0);
    const labels = texts(svg).map((t) => t.content);
    expect(labels).toContain('25.0%');
    expect(labels).toContain('75.0%');
    expect(labels).not.toContain('0.0%');
    // Every legend entry is still there, the empty one included.
    expect(labels).toEqual(expect.arrayContaining(['Owned', 'Partner', 'External']));
  });

  it('draws a single whole part as a full ring', () => {
    const svg = donut([{ name: 'Owned', value: 100, color: '#1F4E79' }], { title: 'Sources' });
    expect(svg.match(/A[\d.]+ [\d.]+ 0 \d 1 /g)).toHaveLength(2);
  });

  it('never overprints one scatter name with another and sizes bubbles by volume', () => {
    // Eight intents crowded into one spot, as real sets often are.
    const points = Array.from({ length: 8 }, (_, i) => ({
      label: `Intent number ${i} with a long name`,
      presence: 40 + i * 0.4,
      life: 55 + (i % 2) * 0.3,
      icv: 100 + i * 50,
    }));
    const svg = lifeScatter(points, { presence: 41, life: 55 }, { title: 'Scatter' });
    const names = texts(svg).filter((t) => t.content.startsWith('Intent'));
    expect(names.length).toBeGreaterThan(1);
    for (const [i, a] of names.entries())
      for (const b of names.slice(i + 1)) {
        const [sa, sb] = [span(a), span(b)];
        const apart = sa.right <= sb.left || sb.right <= sa.left || Math.abs(a.y - b.y) >= 11;
        expect(apart, `${a.content} / ${b.content}`).toBe(true);
      }
    const radii = [...svg.matchAll(/<circle [^>]*r="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(Math.max(...radii)).toBe(12);
    expect(Math.min(...radii)).toBeLessThan(10);
  });

  it('splits a fixed axis extent at round steps', () => {
    expect(ticksWithin(10, 70)).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(ticksWithin(45, 65)).toEqual([45, 50, 55, 60, 65]);
  });

  it('writes only as many run labels as fit, the newest always', () => {
    const labels = Array.from({ length: 11 }, (_, i) => `Week ${28 + i} · 2026`);
    const svg = trendChart(
      labels,
      [{ name: 'Gross', color: '#4F8FC0', values: labels.map((_, i) => 40 + i) }],
      { title: 'Trend' },
    );
    const written = texts(svg).filter((t) => t.content.startsWith('Week'));
    expect(written.length).toBeLessThan(labels.length);
    expect(written.at(-1)?.content).toBe('Week 38 · 2026');
    for (const [i, a] of written.slice(1).entries())
      expect(span(a).left).toBeGreaterThan(span(written[i]!).right);
  });
});
