import Handlebars from 'handlebars';
import { ruleFor } from '../../api/field-units.js';
import type { MessageKey } from '../../locale/catalog-en.js';
import { t } from '../../locale/locale.js';
import { trendAlt } from '../charts/alt.js';
import { stackedHistory } from '../charts/bars.js';
import { sparkline } from '../charts/svg.js';
import { formatDisplay } from '../format.js';
import type { KpiView } from '../model/common.js';
import type { Available } from '../model/payloads.js';
import { sparkColor } from '../noise-view.js';

/**
 * What every section's view (overview.ts … market.ts) builds with: charts are handed to the
 * templates as `SafeString`s, so templates never need a triple-stash: every other value, API strings
 * included, goes through Handlebars' escaping.
 */
export const svg = (markup: string) => new Handlebars.SafeString(markup);

type Card = Available<{ kpi: KpiView }>;

/**
 * A KPI's sparkline, colored like its delta so good and bad news read at a glance, and said in words
 * (where its history started and ended) to a screen reader.
 */
export function kpiSparkline(kpi: KpiView, width?: number, height?: number) {
  const alt = trendAlt(kpi.label, kpi.history, (value) => formatDisplay(value, ruleFor(kpi.key)));
  return svg(sparkline(kpi.history, sparkColor(kpi.delta), alt, width, height));
}

/** A KPI card with its sparkline. */
export function card(source: Card) {
  if (!source.available) return source;
  return { ...source, spark: kpiSparkline(source.kpi) };
}

/** A chart drawn only when its data is available; `null` (the template's "no chart") otherwise. */
export function when<T extends { available: boolean }>(
  value: T,
  draw: (v: T & { available: true }) => string,
) {
  return value.available ? svg(draw(value as T & { available: true })) : null;
}

/**
 * Parts of a whole over runs (stances, source kinds): one bar per run, one colour per kind, named in
 * the locale.
 */
export function kindsHistory(
  history: { measurements: readonly string[]; series: readonly (readonly number[])[] },
  kinds: readonly { labelKey: MessageKey; color: string }[],
  options: { title: string; width?: number; height?: number },
): string {
  const parts = kinds.map((kind, i) => ({
    name: t(kind.labelKey),
    color: kind.color,
    values: history.series[i] ?? [],
  }));
  return stackedHistory(history.measurements, parts, options);
}
