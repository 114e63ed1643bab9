import { t } from '../../locale/locale.js';
import { stackedBars } from '../charts/bars.js';
import { lifeScatter } from '../charts/scatter.js';
import { miniStack } from '../charts/svg.js';
import type { ReportModel } from '../model/index.js';
import { STANCES } from '../model/life.js';
import type { Available } from '../model/payloads.js';
import { card, kindsHistory, svg, when } from './common.js';

/** The life page: its cards, the stance mix and history, the scatter, and a stance bar per table row. */
export function lifeView(life: ReportModel['life']) {
  return {
    ...life,
    kpis: life.kpis.map(card),
    mixChart: when(life.stanceMix, (mix) =>
      stackedBars(
        [t('chart.thisRun'), t('chart.previousRun')],
        STANCES.map((stance, i) => ({
          name: t(stance.labelKey),
          color: stance.color,
          values: [mix.current[i]?.value ?? 0, mix.previous[i]?.value ?? 0],
        })),
        { title: t('endpoint.life.stance-mix'), height: 140 },
      ),
    ),
    historyChart: when(life.stanceHistory, (h) =>
      kindsHistory(h, STANCES, { title: t('endpoint.life.stance-history') }),
    ),
    scatterChart: when(life.scatter, (s) =>
      lifeScatter(
        s.points,
        { presence: s.presenceCurrent, life: s.lifeCurrent },
        { title: t('endpoint.life.scatter') },
      ),
    ),
    byEngine: withStanceBars(life.byEngine, stanceParts),
    byIntent: withStanceBars(life.byIntent, stanceParts),
    stanceLegend: STANCES.map((stance) => ({ label: t(stance.labelKey), color: stance.color })),
  };
}

const stanceParts = (rows: readonly { value: number | null }[]) =>
  STANCES.map((stance, i) => ({
    name: t(stance.labelKey),
    value: rows[i]?.value ?? 0,
    color: stance.color,
  }));

function withStanceBars<R extends { stance: { value: number | null }[] }>(
  table: Available<{ rows: R[] }>,
  parts: (rows: readonly { value: number | null }[]) => { name: string; value: number; color: string }[],
) {
  if (!table.available) return table;
  return {
    ...table,
    rows: table.rows.map((row) => ({ ...row, stanceBar: svg(miniStack(parts(row.stance))) })),
  };
}
