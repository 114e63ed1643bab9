import { currentLocale } from '../../locale/locale.js';
import { historyAlt } from './alt.js';
import { clip, color, labelStep, legend, n, open, THEME, text } from './svg.js';

/**
 * The history trend line chart drawn by hand as SVG, in the look the ECharts version had (grid,
 * scaled value axis, filled point markers, the value written at each line's end, legend below). It
 * was the costliest ECharts chart of the HTML step; see bars.ts for why the simple charts left ECharts.
 */

export interface LineSeries {
  name: string;
  values: readonly number[];
  color: string;
}

/** Axis ticks around [min, max] with a round step (ECharts' `scale: true`): the axis need not start at 0. */
export function scaledTicks(min: number, max: number, split = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (min === max) {
    const pad = Math.abs(min) * 0.1 || 1;
    return scaledTicks(min - pad, max + pad, split);
  }
  const rough = (max - min) / split;
  const power = 10 ** Math.floor(Math.log10(rough));
  const f = rough / power;
  const step = (f < 1.5 ? 1 : f < 2.5 ? 2 : f < 4 ? 3 : f < 7 ? 5 : 10) * power;
  const ticks: number[] = [];
  for (let value = Math.floor(min / step) * step; value < max + step * 0.999; value += step)
    ticks.push(Number(value.toPrecision(12)));
  return ticks;
}

/** History trend: one line per series over the runs, values labelled at the last point. */
export function trendChart(
  labels: readonly string[],
  series: readonly LineSeries[],
  options: { title: string; percent?: boolean; width?: number; height?: number },
): string {
  const percent = options.percent ?? true;
  const format = (value: number, digits: number) =>
    percent
      ? currentLocale().percent(value, digits)
      : currentLocale().number(value, Number.isInteger(value) ? 0 : digits);
  const width = options.width ?? 680;
  const height = options.height ?? 220;
  const grid = { left: 44, right: 56, top: 16, bottom: 46 };
  const all = series.flatMap((s) => s.values.filter(Number.isFinite));
  const ticks = scaledTicks(Math.min(...all), Math.max(...all));
  const low = ticks[0] ?? 0;
  const high = ticks.at(-1) ?? 1;
  const base = height - grid.bottom;
  const y = (v: number) => base - ((v - low) / (high - low || 1)) * (base - grid.top);
  // No gap at the ends (boundaryGap: false): the first run sits on the left edge, the last on the right.
  const step = (width - grid.left - grid.right) / Math.max(1, labels.length - 1);
  const x = (i: number) => grid.left + i * step;
  // A narrow range steps by tenths: its labels keep the digits that tell them apart.
  const tickStep = (ticks[1] ?? 1) - (ticks[0] ?? 0);
  const tickDigits = tickStep > 0 && tickStep < 1 ? Math.min(2, Math.ceil(-Math.log10(tickStep) - 1e-9)) : 0;
  const axis = ticks.map(
    (tick) =>
      `<line x1="${grid.left}" x2="${width - grid.right}" y1="${n(y(tick))}" y2="${n(y(tick))}" stroke="${THEME.grid}"/>` +
      text(grid.left - 8, y(tick), format(tick, tickDigits), { anchor: 'end' }),
  );
  const clipped = labels.map((label) => clip(label, 14));
  const every = labelStep(clipped, step);
  // The newest run keeps its label: counting back from it, every `every`-th one is written.
  const categories = clipped.map((label, i) =>
    (clipped.length - 1 - i) % every ? '' : text(x(i), base + 14, label, { anchor: 'middle' }),
  );
  const lines = series.map((s) => {
    const stroke = color(s.color, THEME.primary);
    const points = s.values.flatMap((v, i) => (Number.isFinite(v) ? [[x(i), y(v)] as const] : []));
    const last = points.at(-1);
    const lastValue = [...s.values].reverse().find(Number.isFinite);
    return (
      `<polyline points="${points.map(([px, py]) => `${n(px)},${n(py)}`).join(' ')}" fill="none" stroke="${stroke}" stroke-width="2" stroke-linejoin="round"/>` +
      points.map(([px, py]) => `<circle cx="${n(px)}" cy="${n(py)}" r="2.5" fill="${stroke}"/>`).join('') +
      (last && lastValue !== undefined
        ? text(last[0] + 6, last[1], format(lastValue, 1), { fill: stroke })
        : '')
    );
  });
  const alt = historyAlt(options.title, labels, series, (value) => format(value, 1));
  return `${open(width, height, alt)}${axis.join('')}${categories.join('')}${lines.join('')}${legend(series, width, height)}</svg>`;
}
