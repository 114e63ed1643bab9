import { createRequire } from 'node:module';

/**
 * ECharts through its CommonJS build: its ESM type declarations do not resolve under NodeNext, and the
 * report needs only these three calls, typed here.
 */
interface EChartsInstance {
  setOption(option: ChartOption, options?: { notMerge?: boolean }): void;
  renderToSVGString(): string;
  dispose(): void;
}
type ChartOption = Record<string, unknown>;
interface EChartsModule {
  init(
    dom: null,
    theme: null,
    options: { renderer: 'svg'; ssr: true; width: number; height: number },
  ): EChartsInstance;
}
/** Required on the first chart, not at import: an idle daemon never loads ECharts. */
let echarts: EChartsModule | undefined;

/** The report's palette and type, shared by every chart so sections look like one document. */
export const THEME = {
  font: "'Liberation Sans', 'DejaVu Sans', Arial, sans-serif",
  ink: '#1D2430',
  muted: '#5B6576',
  grid: '#E3E7ED',
  primary: '#1F4E79',
  secondary: '#4F8FC0',
  good: '#1B7F5B',
  bad: '#C8453B',
  neutral: '#8A94A6',
  brand: '#1F4E79',
  other: '#B8C0CC',
} as const;

/** Escapes text for SVG/HTML; every string that reaches hand-written SVG goes through it. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Reused ECharts instances, one per chart size, within one report. Profiling the HTML step
 * (`--cpu-prof`) showed ECharts taking ~95% of it, a sixth of that in `init`; an instance re-filled
 * with `notMerge` draws the same chart as a fresh one. `releaseCharts()` disposes them at the end of
 * each report: a live instance keeps zrender's animation timer (a `setTimeout` loop) running, which
 * would hold the process open and tick in an idle daemon.
 */
const instances = new Map<string, EChartsInstance>();
const MAX_INSTANCES = 16;

function instanceFor(width: number, height: number): EChartsInstance {
  const key = `${width}x${height}`;
  let chart = instances.get(key);
  if (!chart) {
    if (instances.size >= MAX_INSTANCES) releaseCharts();
    echarts ??= createRequire(import.meta.url)('echarts') as EChartsModule;
    chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
    instances.set(key, chart);
  }
  return chart;
}

/** Disposes every cached chart instance (after a batch of renders; the next render makes new ones). */
export function releaseCharts(): void {
  for (const chart of instances.values()) chart.dispose();
  instances.clear();
}

/**
 * Renders one ECharts option to an SVG string on the server: no DOM, no animation. `notMerge` replaces
 * the previous chart's option entirely, so nothing of one chart (or one report) leaks into the next.
 * ECharts escapes every text it writes (axis labels, legend, tooltips are off), so API strings are
 * safe in options. A chart that throws is disposed rather than reused in an unknown state.
 */
export function renderEChart(option: ChartOption, width: number, height: number): string {
  const chart = instanceFor(width, height);
  try {
    chart.setOption(
      {
        animation: false,
        tooltip: { show: false },
        textStyle: { fontFamily: THEME.font, color: THEME.ink, fontSize: 11 },
        ...option,
      },
      { notMerge: true },
    );
    return chart.renderToSVGString();
  } catch (error) {
    instances.delete(`${width}x${height}`);
    chart.dispose();
    throw error;
  }
}

/** Axis defaults: light grid, muted labels. */
export const axisStyle = {
  axisLine: { lineStyle: { color: THEME.grid } },
  axisTick: { show: false },
  axisLabel: { color: THEME.muted, fontSize: 10, fontFamily: THEME.font },
  splitLine: { lineStyle: { color: THEME.grid } },
} as const;

export const legendStyle = {
  bottom: 0,
  icon: 'roundRect',
  itemWidth: 10,
  itemHeight: 10,
  textStyle: { color: THEME.muted, fontSize: 10, fontFamily: THEME.font },
} as const;

/** Shortens long labels for axes; the full text stays in the tables. */
export function clip(text: string, max = 24): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A hand-written sparkline: cheap enough for every KPI card, and no axis noise. The last point is
 * marked; a flat or single-point history draws a level line.
 */
export function sparkline(
  values: readonly number[],
  color: string = THEME.primary,
  width = 120,
  height = 32,
): string {
  const points = values.filter((value) => Number.isFinite(value));
  if (points.length < 2) return '';
  const min = Math.min(...points);
  const max = Math.max(...points);
  const span = max - min || 1;
  const pad = 3;
  const step = (width - pad * 2) / (points.length - 1);
  const coords = points.map((value, i) => {
    const x = pad + i * step;
    const y = max === min ? height / 2 : pad + (1 - (value - min) / span) * (height - pad * 2);
    return [Number(x.toFixed(1)), Number(y.toFixed(1))] as const;
  });
  const line = coords.map(([x, y]) => `${x},${y}`).join(' ');
  const area = `${pad},${height - pad} ${line} ${coords.at(-1)?.[0]},${height - pad}`;
  const [lx, ly] = coords.at(-1) ?? [0, 0];
  const safe = /^#[0-9A-Fa-f]{6}$/.test(color) ? color : THEME.primary;
  return (
    `<svg class="spark" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">` +
    `<polygon points="${area}" fill="${safe}" fill-opacity="0.08"/>` +
    `<polyline points="${line}" fill="none" stroke="${safe}" stroke-width="1.6" stroke-linejoin="round" stroke-linecap="round"/>` +
    `<circle cx="${lx}" cy="${ly}" r="2.4" fill="${safe}"/></svg>`
  );
}

/** A thin 100% bar for table cells (stance mix per engine or intent). Values in percent points. */
export function miniStack(
  parts: readonly { value: number; color: string }[],
  width = 110,
  height = 10,
): string {
  const total = parts.reduce((sum, part) => sum + Math.max(0, part.value), 0) || 1;
  let x = 0;
  const rects = parts.map((part) => {
    const w = (Math.max(0, part.value) / total) * width;
    const rect = `<rect x="${x.toFixed(2)}" y="0" width="${w.toFixed(2)}" height="${height}" fill="${/^#[0-9A-Fa-f]{6}$/.test(part.color) ? part.color : THEME.neutral}"/>`;
    x += w;
    return rect;
  });
  return `<svg class="mini-stack" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${rects.join('')}</svg>`;
}
