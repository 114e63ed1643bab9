import { currentLocale, t } from '../locale/locale.js';
import { THEME } from './charts/svg.js';
import type { DeltaView } from './format.js';
import type { FamilySummary } from './model/family.js';

/**
 * How a judged change shows beyond its number (report/model/noise-delta.ts): the colour of the
 * sparkline that ends in it, and whether a page carries the footnote that explains the intervals.
 */

/**
 * A sparkline takes its last change's colour: good or bad news in its colour, no clear change in
 * grey — a green or red line would call likely what the number beside it says is unclear.
 */
export function sparkColor(delta: DeltaView): string {
  if (delta.verdict === 'unclear') return THEME.neutral;
  return delta.tone === 'bad' ? THEME.bad : delta.tone === 'good' ? THEME.good : THEME.primary;
}

/**
 * Whether a page's view shows a delta the noise model judged, anywhere in it: the footnote is printed
 * only where an interval needs explaining, so a page of counts (never judged) does not claim its
 * arrows are judged.
 */
export function showsNoise(view: unknown, depth = 0): boolean {
  if (view === null || typeof view !== 'object' || depth > 8) return false;
  if (Array.isArray(view)) return view.some((item) => showsNoise(item, depth + 1));
  const record = view as Record<string, unknown>;
  // Judged either way: a likely change prints its interval too (noise-delta.ts), which the note explains.
  if (typeof record.verdict === 'string' && typeof record.interval === 'string') return true;
  return Object.values(record).some((child) => showsNoise(child, depth + 1));
}

/**
 * What a document says once about the changes it judged: "12 changes judged together; 1 likely, at a
 * false discovery rate of 5 %.", and that the headline figures hold half of it when they do. Empty
 * when nothing was judged.
 */
export function familyLine(judged: FamilySummary): string {
  if (judged.size === 0) return '';
  const alpha = currentLocale().percent(judged.alpha * 100, judged.alpha * 100 < 1 ? 1 : 0);
  const line = t('delta.family', { size: judged.size, likely: judged.likely, alpha });
  const split = judged.headline > 0 && judged.headline < judged.size;
  return split ? `${line} ${t('delta.familyHeadline', { headline: judged.headline })}` : line;
}
