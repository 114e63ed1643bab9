import { currentLocale } from '../../locale/locale.js';
import { AA_NORMAL, contrastRatio } from '../theme/contrast.js';
import { clip, escapeXml, n, THEME, text, textWidth } from './svg.js';

/**
 * The engine × intent heatmap drawn by hand as SVG, in the look the ECharts version had (a blue
 * three-stop scale from the lowest to the highest value, white gaps between cells, every cell labelled,
 * intent names wrapped under their column). Empty cells stay blank.
 */

const SCALE = ['#EEF3F8', '#9CC0DE', THEME.primary] as const;

const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));

/** `a` moved towards `b` by `share` (0 … 1), channel by channel. */
function mix(a: string, b: string, share: number): string {
  const to = rgb(b);
  const mixed = rgb(a).map((c, k) => Math.round(c + ((to[k] ?? c) - c) * share));
  return `#${mixed.map((c) => c.toString(16).padStart(2, '0')).join('')}`.toUpperCase();
}

/**
 * The scale's color at `t` in [0, 1], mixed linearly between its neighbouring stops. A mid blue that
 * neither white nor ink text reaches 4.5:1 on (WCAG AA for the cell's small label) is darkened until
 * white does: a step in the scale no reader notices, against a number some readers could not read.
 */
export function scaleColor(t: number): string {
  const at = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (SCALE.length - 1);
  const i = Math.min(SCALE.length - 2, Math.floor(at));
  let color = mix(SCALE[i] ?? SCALE[0], SCALE[i + 1] ?? SCALE[0], at - i);
  while (Math.max(contrastRatio(color, '#FFFFFF'), contrastRatio(color, THEME.ink)) < AA_NORMAL) {
    color = mix(color, THEME.primary, 0.2);
  }
  return color;
}

/** White labels on dark cells, ink on light ones: whichever contrasts more with the cell (WCAG). */
function labelColor(fill: string): string {
  return contrastRatio(fill, '#FFFFFF') >= contrastRatio(fill, THEME.ink) ? '#FFFFFF' : THEME.ink;
}

/** Breaks a label into lines that fit `width` at `size`, words first, overlong words cut. */
export function wrap(label: string, width: number, size: number): string[] {
  const perLine = Math.max(1, Math.floor(width / (size * 0.55)));
  const lines: string[] = [];
  let line = '';
  for (const word of label.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (textWidth(next, size) <= width) line = next;
    else {
      if (line) lines.push(line);
      let rest = word;
      while (rest.length > perLine) {
        lines.push(rest.slice(0, perLine));
        rest = rest.slice(perLine);
      }
      line = rest;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * Engine × intent heatmap, each cell labelled with its value; empty cells stay blank. It is a table
 * drawn as a picture, so it says so: `role="table"` with rows, row and column headers and cells (ARIA
 * in SVG), which Chromium tags in the PDF as a Table with TH (scoped) and TD, so a screen reader
 * moves through it cell by cell, each value with its engine and intent, as through an HTML table.
 */
export function heatmap(
  engines: readonly string[],
  intents: readonly string[],
  values: readonly (readonly (number | null)[])[],
  options: { title: string; width?: number },
): string {
  const width = options.width ?? 680;
  const height = 20 + engines.length * 30 + 44;
  const grid = { left: 90, right: 12, top: 8, bottom: 44 };
  const columns = Math.max(1, intents.length);
  const cellWidth = (width - grid.left - grid.right) / columns;
  const cellHeight = (height - grid.top - grid.bottom) / Math.max(1, engines.length);
  const all = values.flat().filter((v): v is number => v !== null && Number.isFinite(v));
  const low = all.length ? Math.min(...all) : 0;
  const high = all.length ? Math.max(...all) : 100;
  const cell = (value: number | null | undefined, e: number, i: number) => {
    if (value === null || value === undefined || !Number.isFinite(value)) return '<g role="cell"></g>';
    const fill = scaleColor(high === low ? 1 : (value - low) / (high - low));
    const x = grid.left + i * cellWidth;
    const y = grid.top + e * cellHeight;
    // A 2 px white border between cells, as ECharts drew it (1 px taken from each side).
    return (
      `<g role="cell"><rect x="${n(x + 1)}" y="${n(y + 1)}" width="${n(cellWidth - 2)}" height="${n(cellHeight - 2)}" fill="${fill}"/>` +
      text(x + cellWidth / 2, y + cellHeight / 2, currentLocale().percent(value, 1), {
        size: 9,
        fill: labelColor(fill),
        anchor: 'middle',
      }) +
      '</g>'
    );
  };
  const rows = engines.map((engine, e) => {
    const header = text(grid.left - 8, grid.top + (e + 0.5) * cellHeight, clip(engine, 14), {
      anchor: 'end',
    });
    const cells = intents.map((_, i) => cell(values[e]?.[i], e, i));
    return `<g role="row">${header.replace('<text ', '<text role="rowheader" ')}${cells.join('')}</g>`;
  });
  // Long intent names wrap under their column instead of overlapping; three lines at most.
  const base = height - grid.bottom;
  const columnLabels = intents.map(
    (intent, i) =>
      '<g role="columnheader">' +
      wrap(clip(intent, 40), cellWidth - 6, 9)
        .slice(0, 3)
        .map((line, k) =>
          text(grid.left + (i + 0.5) * cellWidth, base + 10 + k * 11, line, { size: 9, anchor: 'middle' }),
        )
        .join('') +
      '</g>',
  );
  // The column headers come first in the document, as a table's head row does: drawn at the bottom.
  const head = `<g role="row"><g role="cell"></g>${columnLabels.join('')}</g>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="table" aria-label="${escapeXml(options.title)}">` +
    `${head}${rows.join('')}</svg>`
  );
}
