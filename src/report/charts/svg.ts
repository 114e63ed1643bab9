import { currentLocale } from '../../locale/locale.js';

/**
 * The SVG primitives every chart of the report is drawn with (text, legend, palette, escaping), and
 * the small inline charts of tables and cards. Charts are hand-written SVG strings: ECharts SSR cost
 * 20–60 ms a chart (~95% of the HTML step when profiled) for geometry this simple. Every API string
 * goes through `escapeXml`, every color through `color()`: nothing drawn here loads or runs anything.
 */

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

const HEX = /^#[0-9A-Fa-f]{6}$/;
export const color = (value: string, fallback: string = THEME.neutral) =>
  HEX.test(value) ? value : fallback;
export const n = (value: number) => Number(value.toFixed(1));

export interface Grid {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export function text(
  x: number,
  y: number,
  content: string,
  options: { size?: number; fill?: string; anchor?: 'start' | 'middle' | 'end'; rotate?: number } = {},
): string {
  const size = options.size ?? 10;
  const turn = options.rotate ? ` transform="rotate(${options.rotate} ${n(x)} ${n(y)})"` : '';
  return (
    `<text x="${n(x)}" y="${n(y)}"${turn} dominant-baseline="central" text-anchor="${options.anchor ?? 'start'}" ` +
    `font-size="${size}" fill="${options.fill ?? THEME.muted}" font-family="${THEME.font.replace(/"/g, "'")}">` +
    `${escapeXml(content)}</text>`
  );
}

/** Width of a label in Liberation Sans, close enough to centre a legend (average glyph ≈ 0.55 em). */
export const textWidth = (content: string, size: number) => content.length * size * 0.55;

/** The legend centred on the bottom line, a rounded square and the name per entry. */
export function legend(
  items: readonly { name: string; color: string }[],
  width: number,
  height: number,
): string {
  const gap = 10;
  const widths = items.map((item) => 10 + 5 + textWidth(item.name, 10));
  const total = widths.reduce((sum, w) => sum + w, 0) + gap * Math.max(0, items.length - 1);
  let x = Math.max(0, (width - total) / 2);
  const y = height - 7;
  return items
    .map((item, i) => {
      const out =
        `<rect x="${n(x)}" y="${n(y - 5)}" width="10" height="10" rx="2" fill="${color(item.color)}"/>` +
        text(x + 15, y, item.name);
      x += (widths[i] ?? 0) + gap;
      return out;
    })
    .join('');
}

/**
 * Every how many categories a label is written so none overprints its neighbour (ECharts' automatic
 * axis label `interval`): the smallest step at which the widest label fits the room it gets.
 */
export function labelStep(labels: readonly string[], slot: number, size = 10): number {
  const widest = Math.max(0, ...labels.map((label) => textWidth(label, size)));
  return Math.max(1, Math.ceil((widest + 8) / Math.max(1, slot)));
}

/**
 * A chart's opening tag. `label` is its alternative text (charts/alt.ts): with `role="img"`, Chromium
 * tags the chart in the PDF as one Figure with that text as its /Alt, and a screen reader reads it
 * instead of the axis labels and numbers drawn inside.
 */
export const open = (width: number, height: number, label: string, className = '') =>
  `<svg${className ? ` class="${className}"` : ''} xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(label)}">`;

/** Shortens long labels for axes; the full text stays in the tables. */
export function clip(text: string, max = 24): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A hand-written sparkline: cheap enough for every KPI card, and no axis noise. The last point is
 * marked; a flat or single-point history draws a level line. `label` is its alternative text
 * (`trendAlt`).
 */
export function sparkline(
  values: readonly number[],
  color: string = THEME.primary,
  label = '',
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
    open(width, height, label, 'spark') +
    `<polygon points="${area}" fill="${safe}" fill-opacity="0.08"/>` +
    `<polyline points="${line}" fill="none" stroke="${safe}" stroke-width="1.6" stroke-linejoin="round" stroke-linecap="round"/>` +
    `<circle cx="${lx}" cy="${ly}" r="2.4" fill="${safe}"/></svg>`
  );
}

/**
 * A thin 100% bar for table cells (stance mix per engine or intent). Values in percent points; its
 * alternative text names every part with its share.
 */
export function miniStack(
  parts: readonly { name: string; value: number; color: string }[],
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
  const label = parts.map((part) => `${part.name} ${currentLocale().percent(part.value, 1)}`).join(', ');
  return `${open(width, height, label, 'mini-stack')}${rects.join('')}</svg>`;
}
