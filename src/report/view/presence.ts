import { t } from '../../locale/locale.js';
import { groupedBars } from '../charts/bars.js';
import { heatmap } from '../charts/heatmap.js';
import { trendChart } from '../charts/lines.js';
import { THEME } from '../charts/svg.js';
import type { ReportModel } from '../model/index.js';
import { card, svg, when } from './common.js';

/** The presence page: its cards, the gross/weighted trend, positions and the engine × intent matrix. */
export function presenceView(presence: ReportModel['presence']) {
  return {
    ...presence,
    gross: card(presence.gross),
    weighted: card(presence.weighted),
    trendChart:
      presence.gross.available && presence.weighted.available
        ? svg(
            trendChart(
              presence.gross.kpi.historyLabels,
              [
                {
                  name: t('endpoint.presence.gross'),
                  values: presence.gross.kpi.history,
                  color: THEME.secondary,
                },
                {
                  name: t('endpoint.presence.weighted'),
                  values: presence.weighted.kpi.history,
                  color: THEME.primary,
                },
              ],
              { title: t('presence.trend') },
            ),
          )
        : null,
    positionsChart: when(presence.positions, (p) =>
      groupedBars(
        p.parts.map((part) => part.label),
        [
          {
            name: t('chart.previousRun'),
            color: THEME.other,
            values: p.parts.map((part) => part.previous.value ?? 0),
          },
          {
            name: t('chart.thisRun'),
            color: THEME.primary,
            values: p.parts.map((part) => part.current.value ?? 0),
          },
        ],
        { title: t('presence.positions'), width: 260, height: 200 },
      ),
    ),
    matrixChart: when(presence.matrix, (m) =>
      heatmap(
        m.engines.map((e) => e.label),
        m.intents.map((i) => i.label),
        m.values,
        { title: t('endpoint.presence.engine-intent-matrix') },
      ),
    ),
  };
}
