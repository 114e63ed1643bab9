import { t } from '../../locale/locale.js';

/**
 * The alternative text of a chart: what a screen reader says for the figure, written from the numbers
 * the chart draws, in the document's language (the catalogs' `alt.*` messages) and with the chart's
 * own number format. Chromium gives an `<svg role="img" aria-label>` to the PDF as a Figure with
 * that text as its /Alt. Categories are listed with their values; a series over runs is said as where
 * it started and where it ended (every run's value is in the workbook's History sheet).
 */

/** Items of a chart's description, one after another. */
const listed = (items: readonly string[]) => items.join('; ');

/** One part and its value as the chart writes it: `ChatGPT 12.0%`. */
export const item = (name: string, value: string) => `${name} ${value}`;

/** `Title: a 12 %, b 30 %`: the chart's parts with their values, in drawing order. */
export function valuesAlt(title: string, items: readonly string[]): string {
  if (items.length === 0) return t('alt.noValues', { title });
  return t('alt.values', { title, values: items.join(', ') });
}

/** `Title: This run: a 12 %, b 30 %; Previous run: …`: parts grouped by category. */
export function groupsAlt(
  title: string,
  groups: readonly { name: string; items: readonly string[] }[],
): string {
  if (groups.length === 0) return t('alt.noValues', { title });
  return t('alt.values', {
    title,
    values: listed(groups.map((group) => `${group.name}: ${group.items.join(', ')}`)),
  });
}

/** The first and last finite value of a series, formatted; undefined when it has none. */
function ends(values: readonly number[], format: (value: number) => string) {
  const finite = values.filter(Number.isFinite);
  const first = finite[0];
  const last = finite.at(-1);
  return first === undefined || last === undefined ? undefined : { from: format(first), to: format(last) };
}

/** `Title, 11 runs from W28 to W38: a from 42.1 % to 39.5 %; b from …`: series over runs. */
export function historyAlt(
  title: string,
  labels: readonly string[],
  series: readonly { name: string; values: readonly number[] }[],
  format: (value: number) => string,
): string {
  const described = series.flatMap((s) => {
    const range = ends(s.values, format);
    return range ? [t('alt.fromTo', { name: s.name, ...range })] : [];
  });
  if (described.length === 0 || labels.length === 0) return t('alt.noValues', { title });
  return t('alt.history', {
    title,
    count: labels.length,
    first: labels[0]!,
    last: labels.at(-1)!,
    series: listed(described),
  });
}

/** `Weighted presence, 11 runs: from 32.7 % to 22.0 %`: a sparkline's history. */
export function trendAlt(name: string, values: readonly number[], format: (value: number) => string): string {
  const range = ends(values, format);
  if (!range) return t('alt.noValues', { title: name });
  return t('alt.trend', { name, count: values.filter(Number.isFinite).length, ...range });
}
