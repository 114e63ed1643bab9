import { currentLocale, t } from '../../locale/locale.js';
import { groupsAlt, historyAlt, item, valuesAlt } from './alt.js';
import { clip, color, type Grid, labelStep, legend, n, open, THEME, text } from './svg.js';

/**
 * Bar charts drawn by hand as SVG, in the look the ECharts versions had (same grid margins, palette,
 * fonts, legend and label placement). Profiling the HTML step showed ECharts SSR taking ~95% of it, at
 * 20–60 ms a chart; these bars are simple geometry and cost well under a millisecond each. Every API
 * string goes through `escapeXml` (svg.ts `text`), every color through `color()`.
 */

const pct = (value: number) => currentLocale().percent(value, 1);
const pct0 = (value: number) => currentLocale().percent(value, 0);
const plain = (value: number) => currentLocale().number(value, Number.isInteger(value) ? 0 : 1);

/**
 * Round axis steps (1, 2, 3, 5 × 10ⁿ) so about five grid lines cover `max`: the rough step rounded to
 * the nearest of them, as ECharts' `nice(…, round)` does, so axes read as they did.
 */
export function niceTicks(max: number, split = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / split;
  const power = 10 ** Math.floor(Math.log10(rough));
  const f = rough / power;
  const step = (f < 1.5 ? 1 : f < 2.5 ? 2 : f < 4 ? 3 : f < 7 ? 5 : 10) * power;
  const ticks: number[] = [];
  for (let value = 0; value < max + step * 0.999; value += step) ticks.push(Number(value.toPrecision(12)));
  return ticks;
}

/** Vertical value axis: grid lines with their labels on the left. */
function valueAxisY(
  ticks: number[],
  grid: Grid,
  width: number,
  height: number,
  label: (v: number) => string,
) {
  const max = ticks.at(-1) ?? 1;
  const y = (v: number) => height - grid.bottom - (v / max) * (height - grid.top - grid.bottom);
  const lines = ticks.map(
    (tick) =>
      `<line x1="${grid.left}" x2="${width - grid.right}" y1="${n(y(tick))}" y2="${n(y(tick))}" stroke="${THEME.grid}"/>` +
      text(grid.left - 8, y(tick), label(tick), { anchor: 'end' }),
  );
  return { svg: lines.join(''), y };
}

/** Category labels under vertical bars, each centred on its band. */
function categoryAxisX(categories: readonly string[], grid: Grid, width: number, height: number) {
  const band = (width - grid.left - grid.right) / Math.max(1, categories.length);
  const center = (i: number) => grid.left + band * (i + 0.5);
  const base = height - grid.bottom;
  const clipped = categories.map((c) => clip(c, 14));
  const every = labelStep(clipped, band);
  const labels = clipped.map((c, i) =>
    i % every ? '' : text(center(i), base + 14, c, { anchor: 'middle' }),
  );
  const axis = `<line x1="${grid.left}" x2="${width - grid.right}" y1="${base}" y2="${base}" stroke="${THEME.grid}"/>`;
  return { svg: axis + labels.join(''), band, center };
}

export interface BarSeries {
  name: string;
  color: string;
  values: readonly number[];
}

/** Stacked columns over time (100% scale): stance history, source distribution history. */
export function stackedHistory(
  labels: readonly string[],
  parts: readonly BarSeries[],
  options: { title: string; width?: number; height?: number },
): string {
  const width = options.width ?? 680;
  const height = options.height ?? 220;
  const grid = { left: 44, right: 12, top: 12, bottom: 46 };
  const axis = valueAxisY(niceTicks(100), grid, width, height, pct0);
  const x = categoryAxisX(labels, grid, width, height);
  const barWidth = x.band * 0.62;
  const bars = labels.flatMap((_, i) => {
    let sum = 0;
    return parts.map((part) => {
      const value = Math.max(0, part.values[i] ?? 0);
      const top = axis.y(sum + value);
      const bottom = axis.y(sum);
      sum += value;
      return `<rect x="${n(x.center(i) - barWidth / 2)}" y="${n(top)}" width="${n(barWidth)}" height="${n(bottom - top)}" fill="${color(part.color)}"/>`;
    });
  });
  const alt = historyAlt(options.title, labels, parts, pct);
  return `${open(width, height, alt)}${axis.svg}${x.svg}${bars.join('')}${legend(parts, width, height)}</svg>`;
}

/** Grouped vertical bars: position distribution now vs previous run; citations by engine. */
export function groupedBars(
  categories: readonly string[],
  series: readonly BarSeries[],
  options: { title: string; percent?: boolean; width?: number; height?: number },
): string {
  const percent = options.percent ?? true;
  const width = options.width ?? 680;
  const height = options.height ?? 220;
  const grid = { left: 44, right: 12, top: 18, bottom: 46 };
  const max = Math.max(0, ...series.flatMap((s) => s.values.filter(Number.isFinite)));
  const axis = valueAxisY(niceTicks(max), grid, width, height, percent ? pct0 : plain);
  const x = categoryAxisX(categories, grid, width, height);
  // ECharts' default: bars fill ~80% of the band less the 12% gaps between them.
  const count = Math.max(1, series.length);
  const barWidth = (x.band * 0.8) / (count + 0.12 * (count - 1));
  const bars = categories.flatMap((_, i) =>
    series.map((s, k) => {
      const value = Math.max(0, s.values[i] ?? 0);
      const left = x.center(i) - (x.band * 0.8) / 2 + k * barWidth * 1.12;
      const top = axis.y(value);
      // One label per group (the latest series): two side by side collide on narrow charts.
      const label =
        series.length <= 2 && k === series.length - 1
          ? text(left + barWidth / 2, top - 7, percent ? pct(value) : plain(value), {
              size: 9,
              anchor: 'middle',
            })
          : '';
      return `<rect x="${n(left)}" y="${n(top)}" width="${n(barWidth)}" height="${n(axis.y(0) - top)}" fill="${color(s.color)}"/>${label}`;
    }),
  );
  const alt = groupsAlt(
    options.title,
    categories.map((name, i) => ({
      name,
      items: series.map((s) => item(s.name, (percent ? pct : plain)(Math.max(0, s.values[i] ?? 0)))),
    })),
  );
  return `${open(width, height, alt)}${axis.svg}${x.svg}${bars.join('')}${legend(series, width, height)}</svg>`;
}

interface HorizontalRow {
  label: string;
  value: number;
  color: string;
}

/** Horizontal bars, first row on top, labels left and values right of each bar. */
function horizontalBars(
  rows: readonly HorizontalRow[],
  grid: Grid,
  size: { width: number; height: number; alt: string },
  extra: (x: (v: number) => number) => string = () => '',
): string {
  const { width, height } = size;
  const max = niceTicks(Math.max(0, ...rows.map((r) => r.value).filter(Number.isFinite))).at(-1) ?? 1;
  const gridWidth = width - grid.left - grid.right;
  const x = (v: number) => grid.left + (Math.max(0, v) / max) * gridWidth;
  const band = (height - grid.top - grid.bottom) / Math.max(1, rows.length);
  const bars = rows.map((row, i) => {
    const middle = grid.top + band * (i + 0.5);
    const barHeight = band * 0.6;
    return (
      `<rect x="${grid.left}" y="${n(middle - barHeight / 2)}" width="${n(x(row.value) - grid.left)}" height="${n(barHeight)}" fill="${color(row.color)}"/>` +
      text(grid.left - 8, middle, row.label, { anchor: 'end' }) +
      text(x(row.value) + 5, middle, pct(row.value), { fill: THEME.ink })
    );
  });
  return `${open(width, height, size.alt)}${bars.join('')}${extra(x)}</svg>`;
}

/** Horizontal share bars, the brand highlighted, with a dashed fair-share line when there is one. */
export function shareBars(
  rows: readonly { name: string; value: number; isBrand: boolean }[],
  fairShare: number | null,
  options: { title: string; width?: number; height?: number },
): string {
  const width = options.width ?? 680;
  const height = options.height ?? 30 + rows.length * 26;
  const grid = { left: 150, right: 48, top: fairShare === null ? 8 : 22, bottom: 8 };
  const bars = rows.map((r) => ({
    label: clip(r.name, 26),
    value: r.value,
    color: r.isBrand ? THEME.brand : THEME.other,
  }));
  const alt = valuesAlt(options.title, [
    ...rows.map((r) => item(r.name, pct(r.value))),
    ...(fairShare === null ? [] : [t('kpi.fairShare', { value: pct(fairShare) })]),
  ]);
  return horizontalBars(bars, grid, { width, height, alt }, (x) => {
    if (fairShare === null) return '';
    const at = n(x(fairShare));
    return (
      `<line x1="${at}" x2="${at}" y1="${grid.top}" y2="${height - grid.bottom}" stroke="${THEME.bad}" stroke-width="1.2" stroke-dasharray="5 3"/>` +
      text(at, grid.top - 8, t('kpi.fairShare', { value: pct(fairShare) }), {
        size: 9,
        fill: THEME.bad,
        anchor: 'middle',
      })
    );
  });
}

/** One bar per engine in the engine's own color (references by engine). */
export function engineBars(
  rows: readonly { label: string; color: string; value: number }[],
  options: { title: string; width?: number; height?: number },
): string {
  const width = options.width ?? 340;
  const height = options.height ?? 16 + rows.length * 28;
  const bars = rows.map((r) => ({ label: clip(r.label, 14), value: r.value, color: r.color }));
  const alt = valuesAlt(
    options.title,
    rows.map((r) => item(r.label, pct(r.value))),
  );
  return horizontalBars(bars, { left: 90, right: 48, top: 6, bottom: 6 }, { width, height, alt });
}

/** 100% horizontal stacked bars (stance mix this run vs previous), a value axis and legend below. */
export function stackedBars(
  rows: readonly string[],
  parts: readonly BarSeries[],
  options: { title: string; width?: number; height?: number },
): string {
  const width = options.width ?? 680;
  const height = options.height ?? 40 + rows.length * 34 + 30;
  const grid = { left: 100, right: 16, top: 8, bottom: 40 };
  const gridWidth = width - grid.left - grid.right;
  const x = (v: number) => grid.left + (v / 100) * gridWidth;
  const base = height - grid.bottom;
  const axis = niceTicks(100).map(
    (tick) =>
      `<line x1="${n(x(tick))}" x2="${n(x(tick))}" y1="${grid.top}" y2="${base}" stroke="${THEME.grid}"/>` +
      text(x(tick), base + 12, pct0(tick), { anchor: 'middle' }),
  );
  const band = (base - grid.top) / Math.max(1, rows.length);
  const bars = rows.map((row, i) => {
    const middle = grid.top + band * (i + 0.5);
    const barHeight = band * 0.58;
    let sum = 0;
    const segments = parts.map((part) => {
      const value = Math.max(0, part.values[i] ?? 0);
      const left = x(sum);
      sum += value;
      const right = x(sum);
      const label =
        value >= 7
          ? text((left + right) / 2, middle, pct(value), { size: 9, fill: '#FFFFFF', anchor: 'middle' })
          : '';
      return `<rect x="${n(left)}" y="${n(middle - barHeight / 2)}" width="${n(right - left)}" height="${n(barHeight)}" fill="${color(part.color)}"/>${label}`;
    });
    return segments.join('') + text(grid.left - 8, middle, clip(row, 16), { anchor: 'end' });
  });
  const alt = groupsAlt(
    options.title,
    rows.map((name, i) => ({
      name,
      items: parts.map((part) => item(part.name, pct(Math.max(0, part.values[i] ?? 0)))),
    })),
  );
  return `${open(width, height, alt)}${axis.join('')}${bars.join('')}${legend(parts, width, height)}</svg>`;
}
