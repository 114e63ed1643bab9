import { currentLocale, t } from '../../locale/locale.js';
import { clip, type Grid, n, open, THEME, text, textWidth } from './svg.js';

/**
 * Life vs presence per intent drawn by hand as SVG, in the look the ECharts scatter had (grid on both
 * axes, bubbles sized by query volume, each named on its right, dashed guides at the set's averages).
 * ECharts moved colliding names apart and still overprinted some; here each name takes the first free
 * place around its bubble (right, left, a line up or down, above, below), covering no other name or
 * bubble, and is dropped if none is free (the table below names every intent).
 */

interface Point {
  label: string;
  presence: number;
  life: number;
  icv: number;
}

/** Ticks at multiples of a round step inside [min, max] (about five), as ECharts splits a fixed extent. */
export function ticksWithin(min: number, max: number, split = 5): number[] {
  const span = max - min;
  if (!(span > 0)) return [min];
  const rough = span / split;
  const power = 10 ** Math.floor(Math.log10(rough));
  const f = rough / power;
  const step = (f < 1.5 ? 1 : f < 2.5 ? 2 : f < 4 ? 3 : f < 7 ? 5 : 10) * power;
  const ticks: number[] = [];
  for (let value = Math.ceil(min / step - 1e-9) * step; value <= max + 1e-9; value += step)
    ticks.push(Number(value.toPrecision(12)));
  return ticks;
}

interface Box {
  x: number;
  y: number;
  w: number;
}
const LINE = 11;
const collides = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && Math.abs(a.y - b.y) < LINE;
/** Whether a label's box covers part of a bubble (taken as its bounding square). */
const overBubble = (a: Box, c: { cx: number; cy: number; r: number }) =>
  a.x < c.cx + c.r && c.cx - c.r < a.x + a.w && Math.abs(a.y - c.cy) < c.r + LINE / 2;

/** The plot area and its scales: where a presence (x) and a life (y) value are drawn. */
interface Frame {
  width: number;
  grid: Grid;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  right: number;
  bottom: number;
  x: (v: number) => number;
  y: (v: number) => number;
}

interface Bubble {
  name: string;
  cx: number;
  cy: number;
  r: number;
}

/** Life vs presence per intent, bubble size by query volume, with the set's averages as guides. */
export function lifeScatter(
  points: readonly Point[],
  current: { presence: number; life: number },
  options: { title: string; width?: number; height?: number },
): string {
  const width = options.width ?? 680;
  const height = options.height ?? 260;
  const shown = points.filter((p) => Number.isFinite(p.presence) && Number.isFinite(p.life));
  const frame = frameOf(shown, current, width, height);
  const bubbles = bubblesOf(shown, frame);
  const circles = bubbles.map(
    (b) =>
      `<circle cx="${n(b.cx)}" cy="${n(b.cy)}" r="${n(b.r)}" fill="${THEME.secondary}" fill-opacity="0.8"/>`,
  );
  const locale = currentLocale();
  // Each intent by name, where it sits: the figure's point, not only how many there are.
  const where = shown.map((p) =>
    t('alt.scatterPoint', {
      name: p.label,
      presence: locale.percent(p.presence, 1),
      life: locale.number(p.life, 1),
    }),
  );
  const alt = [
    t('alt.scatter', {
      title: options.title,
      count: shown.length,
      presence: locale.percent(current.presence, 1),
      life: locale.number(current.life, 1),
    }),
    ...where,
  ].join('; ');
  return `${open(width, height, alt)}${axes(frame)}${guides(frame, current)}${circles.join('')}${nameLabels(bubbles, frame).join('')}</svg>`;
}

function frameOf(
  shown: readonly Point[],
  current: { presence: number; life: number },
  width: number,
  height: number,
): Frame {
  const grid = { left: 48, right: 20, top: 16, bottom: 40 };
  const xs = shown.length ? shown.map((p) => p.presence) : [current.presence];
  const ys = shown.length ? shown.map((p) => p.life) : [current.life];
  const [xMin, xMax, yMin, yMax] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  // Room past the extreme points so their names are not cut at the edge.
  const x0 = Math.max(0, Math.floor((xMin - 5) / 10) * 10);
  const x1 = Math.max(x0 + 10, Math.ceil((xMax + (xMax - xMin) * 0.3) / 10) * 10);
  const y0 = Math.max(0, Math.floor((yMin - 3) / 5) * 5);
  const y1 = Math.max(y0 + 5, Math.ceil((yMax + 3) / 5) * 5);
  const right = width - grid.right;
  const bottom = height - grid.bottom;
  const x = (v: number) => grid.left + ((v - x0) / (x1 - x0)) * (right - grid.left);
  const y = (v: number) => bottom - ((v - y0) / (y1 - y0)) * (bottom - grid.top);
  return { width, grid, x0, x1, y0, y1, right, bottom, x, y };
}

/** Grid lines with their tick values on both axes, and the axes' names. */
function axes({ grid, x0, x1, y0, y1, right, bottom, x, y }: Frame): string {
  const gridLine = (a: number, b: number, c: number, d: number) =>
    `<line x1="${n(a)}" x2="${n(b)}" y1="${n(c)}" y2="${n(d)}" stroke="${THEME.grid}"/>`;
  const xAxis = ticksWithin(x0, x1).map(
    (tick) =>
      gridLine(x(tick), x(tick), grid.top, bottom) +
      text(x(tick), bottom + 12, currentLocale().percent(tick, 0), { anchor: 'middle' }),
  );
  const yAxis = ticksWithin(y0, y1).map(
    (tick) =>
      gridLine(grid.left, right, y(tick), y(tick)) +
      text(grid.left - 8, y(tick), currentLocale().number(tick, Number.isInteger(tick) ? 0 : 1), {
        anchor: 'end',
      }),
  );
  const names =
    text((grid.left + right) / 2, bottom + 28, t('endpoint.presence.weighted'), {
      size: 11,
      fill: THEME.ink,
      anchor: 'middle',
    }) +
    text(grid.left - 34, (grid.top + bottom) / 2, t('endpoint.life.kpi'), {
      size: 11,
      fill: THEME.ink,
      anchor: 'middle',
      rotate: -90,
    });
  return `${xAxis.join('')}${yAxis.join('')}${names}`;
}

/** Dashed guides at the set's averages (held inside the plot), each named. */
function guides(
  { grid, x0, x1, y0, y1, right, bottom, x, y }: Frame,
  current: { presence: number; life: number },
): string {
  const average = t('chart.setAverage');
  const guideX = x(Math.min(x1, Math.max(x0, current.presence)));
  const guideY = y(Math.min(y1, Math.max(y0, current.life)));
  const dashed = `stroke="${THEME.neutral}" stroke-dasharray="5 3"`;
  return (
    `<line x1="${n(guideX)}" x2="${n(guideX)}" y1="${grid.top}" y2="${bottom}" ${dashed}/>` +
    `<line x1="${grid.left}" x2="${right}" y1="${n(guideY)}" y2="${n(guideY)}" ${dashed}/>` +
    text(guideX, grid.top - 8, average, { size: 9, anchor: 'middle' }) +
    text(right - 2, guideY - 7, average, { size: 9, anchor: 'end' })
  );
}

/** One bubble per point, its area by query volume; biggest first. */
function bubblesOf(shown: readonly Point[], { x, y }: Frame): Bubble[] {
  const maxIcv = Math.max(1, ...shown.map((p) => (Number.isFinite(p.icv) ? p.icv : 0)));
  // Biggest first: small bubbles are drawn on top, and the most-asked intents get their names first.
  return [...shown]
    .sort((a, b) => b.icv - a.icv)
    .map((p) => ({
      name: clip(p.label, 22),
      cx: x(p.presence),
      cy: y(p.life),
      r: (8 + 16 * Math.sqrt(Math.max(0, Number.isFinite(p.icv) ? p.icv : 0) / maxIcv)) / 2,
    }));
}

/** Each bubble's name in the first free place around it; none where no place is free. */
function nameLabels(bubbles: readonly Bubble[], { width, grid, bottom }: Frame): string[] {
  const placed: Box[] = [];
  const labels: string[] = [];
  for (const b of bubbles) {
    const w = textWidth(b.name, 9);
    // Right of the bubble as ECharts put it, else left, a line up or down, above, below.
    const candidates: Box[] = [
      { x: b.cx + b.r + 5, y: b.cy, w },
      { x: b.cx - b.r - 5 - w, y: b.cy, w },
      { x: b.cx + b.r + 5, y: b.cy - LINE, w },
      { x: b.cx + b.r + 5, y: b.cy + LINE, w },
      { x: b.cx - w / 2, y: b.cy - b.r - 7, w },
      { x: b.cx - w / 2, y: b.cy + b.r + 7, w },
    ];
    const free = candidates.find(
      (box) =>
        box.x >= grid.left &&
        box.x + box.w <= width &&
        box.y >= grid.top &&
        box.y <= bottom &&
        !placed.some((other) => collides(box, other)) &&
        !bubbles.some((o) => o !== b && overBubble(box, o)),
    );
    if (!free) continue;
    placed.push(free);
    labels.push(text(free.x, free.y, b.name, { size: 9 }));
  }
  return labels;
}
