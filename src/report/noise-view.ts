import type { FamilySummary } from '../insight/run-insight.js';
import { currentLocale, t } from '../locale/locale.js';
import { THEME } from './charts/svg.js';
import type { DeltaView } from './format.js';

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
export function showsNoise(view: unknown): boolean {
  // Judged either way: a likely change prints its interval too (noise-delta.ts), which the note explains.
  return someRecord(
    view,
    (record) => typeof record.verdict === 'string' && typeof record.interval === 'string',
  );
}

/**
 * Whether `test` holds for an object inside a view (itself included), depth first, at most 8 levels
 * down; it stops at the first. A plain recursive walk, not a generator: a view holds thousands of
 * objects (chart points, table rows), and a generator delegating level by level cost a quarter of the
 * HTML step.
 */
function someRecord(view: unknown, test: (record: Record<string, unknown>) => boolean, depth = 0): boolean {
  if (view === null || typeof view !== 'object' || depth > 8) return false;
  if (Array.isArray(view)) {
    for (const item of view) if (someRecord(item, test, depth + 1)) return true;
    return false;
  }
  const record = view as Record<string, unknown>;
  if (test(record)) return true;
  for (const key in record) {
    if (Object.hasOwn(record, key) && someRecord(record[key], test, depth + 1)) return true;
  }
  return false;
}

/**
 * The likely changes a view shows, by figure: what a document's statement counts, so the number it
 * states equals the arrows a reader finds in it (the run's family may hold likely changes of figures
 * this document does not print).
 */
export function likelyShown(view: unknown, into = new Set<string>()): Set<string> {
  someRecord(view, (record) => {
    if (record.verdict === 'likely' && typeof record.figure === 'string') into.add(record.figure);
    return false;
  });
  return into;
}

/**
 * What a document says once about the changes it judged: "12 changes judged together; 1 likely, at a
 * false discovery rate of 5 %.", and that the headline figures hold half of it when they do. Empty
 * when nothing was judged. The family is the run's (every surface judges alike); a document that shows
 * fewer of its likely changes (`shown`) states how many it shows and how many the run has, so its
 * count is the count of its arrows.
 */
export function familyLine(judged: FamilySummary, shown?: number): string {
  if (judged.size === 0) return '';
  const alpha = currentLocale().percent(judged.alpha * 100, judged.alpha * 100 < 1 ? 1 : 0);
  const line =
    shown !== undefined && shown < judged.likely
      ? t('delta.familyShown', { size: judged.size, shown, likely: judged.likely, alpha })
      : t('delta.family', { size: judged.size, likely: judged.likely, alpha });
  const split = judged.headline > 0 && judged.headline < judged.size;
  return split ? `${line} ${t('delta.familyHeadline', { headline: judged.headline })}` : line;
}
