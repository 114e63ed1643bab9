import { t } from '../../locale/locale.js';
import { engineBars, groupedBars } from '../charts/bars.js';
import type { ReportModel } from '../model/index.js';
import { card, when } from './common.js';

/** The scout page: its cards, references by engine and citations by engine. */
export function scoutView(scout: ReportModel['scout']) {
  return {
    ...scout,
    stats: scout.stats.available
      ? {
          available: true,
          kpis: scout.stats.kpis.map((kpi) => card({ available: true, kpi })),
        }
      : scout.stats,
    byEngineChart: when(scout.byEngine, (b) =>
      engineBars(
        b.rows.map((r) => ({ label: r.engine.label, color: r.engine.color, value: r.weighted.value ?? 0 })),
        { title: t('endpoint.scout.references-by-llm'), width: 330 },
      ),
    ),
    citationsChart: when(scout.citations, (c) =>
      groupedBars(
        c.engines,
        c.categories.map((category) => ({
          name: category.label,
          color: category.color,
          values: category.values,
        })),
        { title: t('scout.citationsByEngine'), percent: false },
      ),
    ),
  };
}
