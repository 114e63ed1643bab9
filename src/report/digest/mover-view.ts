import { metricName } from '../../insight/metric-names.js';
import { currentLocale } from '../../locale/locale.js';
import type { PortfolioMove } from './movers.js';

/**
 * A move as the templates print it (templates/report/partials/movers.hbs), in the current locale. The
 * metric is named in words with what moved ("Gross presence on ChatGPT", "Share of voice of Acme"),
 * from the one table of metric names; a likely change is marked so a template can stress it.
 */
export interface MoverView {
  brand: string;
  querySet: string;
  metric: string;
  /** Kept for the template's " · dimension": the member is already part of `metric`. */
  dimension: string;
  from: string;
  to: string;
  /** A likely change, judged with the other changes of its run (src/insight/changes.ts). */
  likely: boolean;
}

function valueText(value: number, unit: PortfolioMove['unit']): string {
  const locale = currentLocale();
  if (unit === 'percent') return locale.percent(value, 1);
  if (unit === 'fraction') return locale.percent(value * 100, 1);
  if (unit === 'count') return locale.number(value, 0);
  return locale.number(value, 2);
}

export function moverView(move: PortfolioMove): MoverView {
  return {
    brand: move.brand,
    querySet: move.querySet,
    metric: metricName(
      {
        endpoint: move.endpoint,
        field: move.field,
        dimension: move.dimension,
        dimension_id: move.dimensionId,
        dimension_label: move.dimensionLabel,
      },
      currentLocale().tag,
    ),
    dimension: '',
    from: valueText(move.from, move.unit),
    to: valueText(move.to, move.unit),
    likely: move.significance === 'likely',
  };
}
