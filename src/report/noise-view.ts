import { THEME } from './charts/svg.js';
import type { DeltaView } from './format.js';

/**
 * How a judged change shows beyond its number (report/model/noise-delta.ts): the colour of the
 * sparkline that ends in it, and whether a page carries the footnote that explains the "±".
 */

/**
 * A sparkline takes its last change's colour: good or bad news in its colour, a change within noise
 * in grey — a green or red line would call real what the number beside it says is noise.
 */
export function sparkColor(delta: DeltaView): string {
  if (delta.noise === true) return THEME.neutral;
  return delta.tone === 'bad' ? THEME.bad : delta.tone === 'good' ? THEME.good : THEME.primary;
}

/**
 * Whether a page's view shows a delta the noise model judged, anywhere in it: the footnote is printed
 * only where a "±" needs explaining, so a page of counts (never judged) does not claim its
 * arrows lie beyond an interval nobody computed.
 */
export function showsNoise(view: unknown, depth = 0): boolean {
  if (view === null || typeof view !== 'object' || depth > 8) return false;
  if (Array.isArray(view)) return view.some((item) => showsNoise(item, depth + 1));
  const record = view as Record<string, unknown>;
  // Judged either way: a real change prints its "±" too (noise-delta.ts), which the note explains.
  if (typeof record.noise === 'boolean' && typeof record.text === 'string') return true;
  return Object.values(record).some((child) => showsNoise(child, depth + 1));
}
