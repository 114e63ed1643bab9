import { axisStyle, clip, legendStyle, renderEChart, THEME } from './charts/svg.js';
import { currentLocale, t } from './locale/locale.js';

/**
 * The report's charts as inline SVG, rendered in Node (ECharts server-side rendering). Each builder
 * takes plain numbers from the view model, in display units (percent points for percents), and returns
 * one self-contained `<svg>`; nothing in it loads anything.
 */

// Bars are drawn by hand (charts/bars.ts): ECharts SSR cost 20–60 ms a chart for simple geometry.
export { engineBars, groupedBars, shareBars, stackedBars, stackedHistory } from './charts/bars.js';
export { type LineSeries, trendChart } from './charts/lines.js';
export { escapeXml, sparkline } from './charts/svg.js';

type Extent = { min: number; max: number };
// Chart labels keep one decimal always, so a column of values reads aligned (83.0%, not 83%), and are
// written the reader's way (`83,0 %`): charts are drawn inside the document's `withLocale`.
const pct = (value: number) => currentLocale().percent(value, 1);
const plain = (value: number) => currentLocale().number(value, Number.isInteger(value) ? 0 : 1);
const percentAxis = {
  ...axisStyle,
  type: 'value',
  axisLabel: { ...axisStyle.axisLabel, formatter: (value: number) => currentLocale().percent(value, 0) },
};
const numberAxis = {
  ...axisStyle,
  type: 'value',
  axisLabel: { ...axisStyle.axisLabel, formatter: plain },
};

/** Engine × intent heatmap, each cell labelled with its value; empty cells stay blank. */
export function heatmap(
  engines: readonly string[],
  intents: readonly string[],
  values: readonly (readonly (number | null)[])[],
  options: { width?: number } = {},
): string {
  const data = values.flatMap((row, e) =>
    row.flatMap((value, i) => (value === null ? [] : [[i, e, Number(value.toFixed(1))]])),
  );
  const all = data.map((d) => d[2] as number);
  return renderEChart(
    {
      grid: { left: 90, right: 12, top: 8, bottom: 44 },
      xAxis: {
        ...axisStyle,
        type: 'category',
        data: intents.map((i) => clip(i, 40)),
        // Long intent names wrap under their column instead of overlapping.
        axisLabel: {
          ...axisStyle.axisLabel,
          interval: 0,
          fontSize: 9,
          width: 590 / Math.max(1, intents.length) - 6,
          overflow: 'break',
        },
        splitArea: { show: false },
      },
      yAxis: { ...axisStyle, type: 'category', data: engines.map((e) => clip(e, 14)), inverse: true },
      visualMap: {
        show: false,
        min: all.length ? Math.min(...all) : 0,
        max: all.length ? Math.max(...all) : 100,
        inRange: { color: ['#EEF3F8', '#9CC0DE', THEME.primary] },
      },
      series: [
        {
          type: 'heatmap',
          data,
          label: { show: true, fontSize: 9, formatter: (p: { value: number[] }) => pct(p.value[2] ?? 0) },
          itemStyle: { borderColor: '#fff', borderWidth: 2 },
        },
      ],
    },
    options.width ?? 680,
    20 + engines.length * 30 + 44,
  );
}

/** A donut of parts of one whole (source distribution), labelled with their shares. */
export function donut(
  parts: readonly { name: string; value: number; color: string }[],
  options: { width?: number; height?: number } = {},
): string {
  return renderEChart(
    {
      legend: { ...legendStyle, data: parts.map((p) => p.name) },
      series: [
        {
          type: 'pie',
          radius: ['42%', '70%'],
          center: ['50%', '45%'],
          data: parts.map((p) => ({ name: p.name, value: p.value, itemStyle: { color: p.color } })),
          label: { formatter: (p: { value: number }) => pct(p.value), fontSize: 10, color: THEME.ink },
          labelLine: { length: 6, length2: 6 },
        },
      ],
    },
    options.width ?? 260,
    options.height ?? 200,
  );
}

/** Life vs presence per intent, bubble size by query volume, with the set's averages as guides. */
export function lifeScatter(
  points: readonly { label: string; presence: number; life: number; icv: number }[],
  current: { presence: number; life: number },
  options: { width?: number; height?: number } = {},
): string {
  const maxIcv = Math.max(1, ...points.map((p) => p.icv));
  return renderEChart(
    {
      grid: { left: 48, right: 20, top: 16, bottom: 40 },
      // Room past the extreme points so their labels are not cut at the edge.
      xAxis: {
        ...percentAxis,
        name: t('endpoint.presence.weighted'),
        nameLocation: 'middle',
        nameGap: 24,
        min: (v: Extent) => Math.max(0, Math.floor((v.min - 5) / 10) * 10),
        max: (v: Extent) => Math.ceil((v.max + (v.max - v.min) * 0.3) / 10) * 10,
      },
      yAxis: {
        ...numberAxis,
        name: t('endpoint.life.kpi'),
        nameLocation: 'middle',
        nameGap: 32,
        min: (v: Extent) => Math.max(0, Math.floor((v.min - 3) / 5) * 5),
        max: (v: Extent) => Math.ceil((v.max + 3) / 5) * 5,
      },
      series: [
        {
          type: 'scatter',
          data: points.map((p) => ({ value: [p.presence, p.life], name: clip(p.label, 22) })),
          symbolSize: (_: unknown, p: { dataIndex: number }) =>
            8 + 16 * Math.sqrt((points[p.dataIndex]?.icv ?? 0) / maxIcv),
          itemStyle: { color: THEME.secondary, opacity: 0.8 },
          label: { show: true, position: 'right', fontSize: 9, color: THEME.muted, formatter: '{b}' },
          // Intents often sit close together: labels that would overprint each other are moved apart
          // vertically, and any that still collide are dropped (the table below names every intent).
          labelLayout: { moveOverlap: 'shiftY', hideOverlap: true },
          markLine: {
            symbol: 'none',
            silent: true,
            lineStyle: { color: THEME.neutral, type: 'dashed' },
            label: { fontSize: 9, color: THEME.muted },
            data: [
              { xAxis: current.presence, label: { formatter: t('chart.setAverage'), position: 'end' } },
              { yAxis: current.life, label: { formatter: t('chart.setAverage'), position: 'insideEndTop' } },
            ],
          },
        },
      ],
    },
    options.width ?? 680,
    options.height ?? 260,
  );
}
