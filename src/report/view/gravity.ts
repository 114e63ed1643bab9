import { t } from '../../locale/locale.js';
import { donut } from '../charts/donut.js';
import { trendChart } from '../charts/lines.js';
import { THEME } from '../charts/svg.js';
import { SOURCE_KINDS } from '../model/gravity.js';
import type { ReportModel } from '../model/index.js';
import { card, kindsHistory, when } from './common.js';

/** The gravity page: its cards, the plus/minus trend and the sources now and over time. */
export function gravityView(gravity: ReportModel['gravity']) {
  return {
    ...gravity,
    kpis: [card(gravity.plus), card(gravity.minus), card(gravity.openErrors)],
    trendChart: when(gravity.trend, (trend) =>
      trendChart(
        trend.labels,
        [
          { name: t('endpoint.gravity.gravity-plus'), values: trend.plus, color: THEME.good },
          { name: t('endpoint.gravity.gravity-minus'), values: trend.minus, color: THEME.bad },
        ],
        { title: t('endpoint.gravity.trend') },
      ),
    ),
    sourcesChart: when(gravity.sources, (s) =>
      donut(
        s.parts.map((p) => ({ name: p.label, value: p.value ?? 0, color: p.color })),
        { title: t('endpoint.gravity.source-distribution'), width: 330, height: 200 },
      ),
    ),
    sourcesHistoryChart: when(gravity.sourcesHistory, (h) =>
      kindsHistory(h, SOURCE_KINDS, { title: t('gravity.sourcesOverTime'), width: 330, height: 200 }),
    ),
  };
}
