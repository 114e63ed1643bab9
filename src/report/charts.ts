import { axisStyle, clip, legendStyle, renderEChart, THEME } from './charts/svg.js';
import { currentLocale, t } from './locale/locale.js';

/**
 * The report's charts as inline SVG, rendered in Node (ECharts server-side rendering). Each builder
 * takes plain numbers from the view model, in display units (percent points for percents), and returns
 * one self-contained `<svg>`; nothing in it loads anything.
 */

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

export interface LineSeries {
  name: string;
  values: readonly number[];
  color: string;
}

/** History trend: one line per series over the runs, values labelled at the last point. */
export function trendChart(
  labels: readonly string[],
  series: readonly LineSeries[],
  options: { percent?: boolean; width?: number; height?: number } = {},
): string {
  const percent = options.percent ?? true;
  return renderEChart(
    {
      grid: { left: 44, right: 56, top: 16, bottom: 46 },
      legend: { ...legendStyle, data: series.map((s) => s.name) },
      xAxis: { ...axisStyle, type: 'category', data: labels.map((l) => clip(l, 14)), boundaryGap: false },
      yAxis: percent ? { ...percentAxis, scale: true } : { ...numberAxis, scale: true },
      series: series.map((s) => ({
        name: s.name,
        type: 'line',
        data: [...s.values],
        color: s.color,
        symbol: 'circle',
        symbolSize: 5,
        lineStyle: { width: 2 },
        endLabel: {
          show: true,
          formatter: (p: { value: number }) => (percent ? pct(p.value) : plain(p.value)),
          color: s.color,
          fontSize: 10,
        },
      })),
    },
    options.width ?? 680,
    options.height ?? 220,
  );
}

export interface StackPart {
  name: string;
  color: string;
  /** One value per row/column, in percent points. */
  values: readonly number[];
}

/** 100% horizontal stacked bars: stance mix (this run vs previous), positions per engine. */
export function stackedBars(
  rows: readonly string[],
  parts: readonly StackPart[],
  options: { width?: number; height?: number } = {},
): string {
  return renderEChart(
    {
      grid: { left: 100, right: 16, top: 8, bottom: 40 },
      legend: { ...legendStyle, data: parts.map((p) => p.name) },
      xAxis: { ...percentAxis, max: 100 },
      yAxis: { ...axisStyle, type: 'category', data: rows.map((r) => clip(r, 16)), inverse: true },
      series: parts.map((part) => ({
        name: part.name,
        type: 'bar',
        stack: 'all',
        barWidth: '58%',
        color: part.color,
        data: [...part.values],
        label: {
          show: true,
          formatter: (p: { value: number }) => (p.value >= 7 ? pct(p.value) : ''),
          color: '#fff',
          fontSize: 9,
        },
      })),
    },
    options.width ?? 680,
    options.height ?? 40 + rows.length * 34 + 30,
  );
}

/** Stacked columns over time: stance history, source distribution history. */
export function stackedHistory(
  labels: readonly string[],
  parts: readonly StackPart[],
  options: { width?: number; height?: number } = {},
): string {
  return renderEChart(
    {
      grid: { left: 44, right: 12, top: 12, bottom: 46 },
      legend: { ...legendStyle, data: parts.map((p) => p.name) },
      xAxis: { ...axisStyle, type: 'category', data: labels.map((l) => clip(l, 14)) },
      yAxis: { ...percentAxis, max: 100 },
      series: parts.map((part) => ({
        name: part.name,
        type: 'bar',
        stack: 'all',
        barWidth: '62%',
        color: part.color,
        data: [...part.values],
      })),
    },
    options.width ?? 680,
    options.height ?? 220,
  );
}

/** Grouped vertical bars: position distribution now vs previous run; citations by engine. */
export function groupedBars(
  categories: readonly string[],
  series: readonly { name: string; color: string; values: readonly number[] }[],
  options: { percent?: boolean; width?: number; height?: number } = {},
): string {
  const percent = options.percent ?? true;
  return renderEChart(
    {
      grid: { left: 44, right: 12, top: 18, bottom: 46 },
      legend: { ...legendStyle, data: series.map((s) => s.name) },
      xAxis: { ...axisStyle, type: 'category', data: categories.map((c) => clip(c, 14)) },
      yAxis: percent ? percentAxis : numberAxis,
      series: series.map((s, index) => ({
        name: s.name,
        type: 'bar',
        color: s.color,
        barGap: '12%',
        data: [...s.values],
        label: {
          // One label per group (the latest series): two side by side collide on narrow charts.
          show: series.length <= 2 && index === series.length - 1,
          position: 'top',
          fontSize: 9,
          color: THEME.muted,
          formatter: (p: { value: number }) => (percent ? pct(p.value) : plain(p.value)),
        },
      })),
    },
    options.width ?? 680,
    options.height ?? 220,
  );
}

/** Horizontal share bars, the brand highlighted, with a dashed fair-share line when there is one. */
export function shareBars(
  rows: readonly { name: string; value: number; isBrand: boolean }[],
  fairShare: number | null,
  options: { width?: number; height?: number } = {},
): string {
  return renderEChart(
    {
      grid: { left: 150, right: 48, top: fairShare === null ? 8 : 22, bottom: 8 },
      xAxis: { ...percentAxis, show: false },
      yAxis: { ...axisStyle, type: 'category', data: rows.map((r) => clip(r.name, 26)), inverse: true },
      series: [
        {
          type: 'bar',
          barWidth: '60%',
          data: rows.map((r) => ({
            value: r.value,
            itemStyle: { color: r.isBrand ? THEME.brand : THEME.other },
          })),
          label: {
            show: true,
            position: 'right',
            fontSize: 10,
            color: THEME.ink,
            formatter: (p: { value: number }) => pct(p.value),
          },
          markLine:
            fairShare === null
              ? undefined
              : {
                  symbol: 'none',
                  silent: true,
                  lineStyle: { color: THEME.bad, type: 'dashed', width: 1.2 },
                  label: {
                    formatter: t('kpi.fairShare', { value: pct(fairShare) }),
                    color: THEME.bad,
                    fontSize: 9,
                    position: 'start',
                  },
                  data: [{ xAxis: fairShare }],
                },
        },
      ],
    },
    options.width ?? 680,
    options.height ?? 30 + rows.length * 26,
  );
}

/** One bar per engine in the engine's own color (references by engine). */
export function engineBars(
  rows: readonly { label: string; color: string; value: number }[],
  options: { width?: number; height?: number } = {},
): string {
  return renderEChart(
    {
      grid: { left: 90, right: 48, top: 6, bottom: 6 },
      xAxis: { ...percentAxis, show: false },
      yAxis: { ...axisStyle, type: 'category', data: rows.map((r) => clip(r.label, 14)), inverse: true },
      series: [
        {
          type: 'bar',
          barWidth: '58%',
          data: rows.map((r) => ({ value: r.value, itemStyle: { color: r.color } })),
          label: {
            show: true,
            position: 'right',
            fontSize: 10,
            formatter: (p: { value: number }) => pct(p.value),
          },
        },
      ],
    },
    options.width ?? 340,
    options.height ?? 16 + rows.length * 28,
  );
}

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
