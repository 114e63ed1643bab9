import { en } from '../locale/catalog-en.js';
import { currentLocale, type MessageKey, t } from '../locale/locale.js';
import type { PortfolioMove } from './movers.js';

/** A move as the templates print it (templates/report/partials/movers.hbs), in the current locale. */
export interface MoverView {
  brand: string;
  querySet: string;
  metric: string;
  dimension: string;
  from: string;
  to: string;
}

const CATALOG_KEYS = new Set(Object.keys(en));

function valueText(value: number, unit: PortfolioMove['unit']): string {
  const locale = currentLocale();
  if (unit === 'percent') return locale.percent(value, 1);
  if (unit === 'fraction') return locale.percent(value * 100, 1);
  if (unit === 'count') return locale.number(value, 0);
  return locale.number(value, 2);
}

export function moverView(move: PortfolioMove): MoverView {
  const key = `endpoint.${move.endpoint}`;
  const title = CATALOG_KEYS.has(key) ? t(key as MessageKey) : move.endpoint;
  return {
    brand: move.brand,
    querySet: move.querySet,
    metric: move.field && move.field !== 'current' ? `${title} (${move.field})` : title,
    dimension: move.dimension,
    from: valueText(move.from, move.unit),
    to: valueText(move.to, move.unit),
  };
}
