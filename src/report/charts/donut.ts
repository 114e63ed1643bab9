import { currentLocale } from '../../locale/locale.js';
import { item, valuesAlt } from './alt.js';
import { color, legend, n, open, THEME, text } from './svg.js';

/**
 * The donut drawn by hand as SVG, in the look the ECharts pie had (ring from 42% to 70% of the half
 * side, first part from twelve o'clock clockwise, each share written outside at the end of a bent
 * leader line in the part's color, legend below). Labels on one side that would overprint are pushed apart vertically.
 */

interface Part {
  name: string;
  value: number;
  color: string;
}

const point = (cx: number, cy: number, r: number, angle: number) =>
  [cx + r * Math.sin(angle), cy - r * Math.cos(angle)] as const;

/** One ring sector from angle `a` to `b` (radians clockwise from twelve o'clock). */
function sector(cx: number, cy: number, inner: number, outer: number, a: number, b: number): string {
  const large = b - a > Math.PI ? 1 : 0;
  const [x1, y1] = point(cx, cy, outer, a);
  const [x2, y2] = point(cx, cy, outer, b);
  const [x3, y3] = point(cx, cy, inner, b);
  const [x4, y4] = point(cx, cy, inner, a);
  return (
    `M${n(x1)} ${n(y1)}A${outer} ${outer} 0 ${large} 1 ${n(x2)} ${n(y2)}` +
    `L${n(x3)} ${n(y3)}A${inner} ${inner} 0 ${large} 0 ${n(x4)} ${n(y4)}Z`
  );
}

/** A donut of parts of one whole (source distribution), labelled with their shares. */
export function donut(
  parts: readonly Part[],
  options: { title: string; width?: number; height?: number },
): string {
  const width = options.width ?? 260;
  const height = options.height ?? 200;
  const cx = width / 2;
  const cy = height * 0.45;
  const half = Math.min(width, height) / 2;
  const inner = n(half * 0.42);
  const outer = n(half * 0.7);
  const shown = parts.map((p) => ({ ...p, value: Number.isFinite(p.value) ? Math.max(0, p.value) : 0 }));
  const total = shown.reduce((sum, p) => sum + p.value, 0);
  const alt = valuesAlt(
    options.title,
    shown.map((p) => item(p.name, currentLocale().percent(p.value, 1))),
  );
  if (total <= 0) {
    // Nothing to divide: an empty ring, as a pie of zeros reads.
    const ring = `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n((inner + outer) / 2)}" fill="none" stroke="${THEME.grid}" stroke-width="${n(outer - inner)}"/>`;
    return `${open(width, height, alt)}${ring}${legend(parts, width, height)}</svg>`;
  }
  let angle = 0;
  const slices: string[] = [];
  const labels: {
    side: 1 | -1;
    y: number;
    anchorX: number;
    anchorY: number;
    elbowX: number;
    text: string;
    stroke: string;
  }[] = [];
  for (const part of shown) {
    if (part.value === 0) continue;
    const sweep = (part.value / total) * Math.PI * 2;
    const fill = color(part.color);
    // A whole ring cannot be one arc (its ends coincide): drawn as two halves.
    const path =
      sweep >= Math.PI * 2 - 1e-9
        ? sector(cx, cy, inner, outer, 0, Math.PI) + sector(cx, cy, inner, outer, Math.PI, Math.PI * 2)
        : sector(cx, cy, inner, outer, angle, angle + sweep);
    slices.push(`<path d="${path}" fill="${fill}" stroke="#FFFFFF" stroke-width="1"/>`);
    const middle = angle + sweep / 2;
    const [ax, ay] = point(cx, cy, outer, middle);
    const [ex, ey] = point(cx, cy, outer + 6, middle);
    labels.push({
      side: Math.sin(middle) >= 0 ? 1 : -1,
      y: ey,
      anchorX: ax,
      anchorY: ay,
      elbowX: ex,
      text: currentLocale().percent(part.value, 1),
      stroke: fill,
    });
    angle += sweep;
  }
  // Per side, top to bottom: a label closer than one line to the one above moves down.
  for (const side of [1, -1] as const) {
    let previous = Number.NEGATIVE_INFINITY;
    for (const label of labels.filter((l) => l.side === side).sort((a, b) => a.y - b.y)) {
      label.y = Math.max(label.y, previous + 12);
      previous = label.y;
    }
  }
  const leaders = labels.map((l) => {
    const endX = l.elbowX + l.side * 6;
    return (
      `<polyline points="${n(l.anchorX)},${n(l.anchorY)} ${n(l.elbowX)},${n(l.y)} ${n(endX)},${n(l.y)}" fill="none" stroke="${l.stroke}"/>` +
      text(endX + l.side * 3, l.y, l.text, { fill: THEME.ink, anchor: l.side === 1 ? 'start' : 'end' })
    );
  });
  return `${open(width, height, alt)}${slices.join('')}${leaders.join('')}${legend(parts, width, height)}</svg>`;
}
