import type { ThemeConfig } from './theme.js';

/**
 * Colour contrast as WCAG 2.1 defines it (§1.4.3, "relative luminance" and "contrast ratio"): the one
 * implementation reportd has, used by `reportd check` on themes and by the heatmap to pick a legible
 * label colour. AA asks 4.5:1 of normal text and 3:1 of large text (18 pt, or 14 pt bold).
 */

export const AA_NORMAL = 4.5;
export const AA_LARGE = 3;

/** Relative luminance of `#RRGGBB` (0 black … 1 white). */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const channel = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** Contrast ratio of two `#RRGGBB` colours, 1 … 21, whichever is lighter. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

/** The background of the KPI cards (report.css `--panel`), where good and bad changes are written. */
const PANEL = '#F6F8FA';
const WHITE = '#FFFFFF';

type ThemeColor = 'primary' | 'positive' | 'negative';

/**
 * Where the built-in templates draw text with or on a theme colour, and the smallest text drawn there
 * (which decides between AA's two thresholds). Primary under white text is also primary as text on
 * white (headings, the email's title line): the ratio of a pair does not depend on which is which.
 */
const PAIRS: readonly { color: ThemeColor; other: string; text: string; where: string; large: boolean }[] = [
  {
    color: 'primary',
    other: WHITE,
    text: 'white text on primary',
    where: "the cover band, section numbers and tags; primary headings and the email's title line on white",
    large: false,
  },
  {
    color: 'positive',
    other: PANEL,
    text: `positive as text on the KPI cards' ${PANEL}`,
    where: 'good changes',
    large: false,
  },
  {
    color: 'negative',
    other: PANEL,
    text: `negative as text on the KPI cards' ${PANEL}`,
    where: 'bad changes',
    large: false,
  },
];

/**
 * One line per colour the theme sets that falls short of WCAG AA with the text drawn on it: which
 * pair, its ratio and the one it needs. Colours the theme leaves alone are reportd's own, which pass.
 */
export function themeContrastWarnings(theme: ThemeConfig): string[] {
  return PAIRS.flatMap((pair) => {
    const color = theme[pair.color];
    if (color === undefined || !/^#[0-9A-Fa-f]{6}$/.test(color)) return [];
    const ratio = contrastRatio(color, pair.other);
    const needed = pair.large ? AA_LARGE : AA_NORMAL;
    if (ratio >= needed) return [];
    const shown = `${pair.text.replace(pair.color, `${pair.color} ${color.toUpperCase()}`)}`;
    return [
      `${shown} has a contrast of ${ratio.toFixed(2)}:1, below the ${needed}:1 WCAG AA asks of ${pair.large ? 'large' : 'normal'} text (${pair.where})`,
    ];
  });
}
