import { t } from '../../locale/locale.js';
import { shareBars } from '../charts/bars.js';
import type { ReportModel } from '../model/index.js';
import { card, kpiSparkline, when } from './common.js';

/** The market page: a small sparkline per metric row, the fair-share card and the competitors. */
export function marketView(market: ReportModel['market']) {
  return {
    ...market,
    metrics: market.metrics.available
      ? {
          ...market.metrics,
          rows: market.metrics.rows.map((kpi) => ({
            ...kpi,
            spark: kpiSparkline(kpi, 90, 22),
          })),
          fairShareCard: card({ available: true, kpi: market.metrics.fairShare }),
        }
      : market.metrics,
    competitorsChart: when(market.competitors, (c) =>
      shareBars(c.rows, null, { title: t('market.competitors') }),
    ),
  };
}
