import { t } from '../../locale/locale.js';
import { shareBars } from '../charts/bars.js';
import type { ReportModel } from '../model/index.js';
import { card, when } from './common.js';

/** The overview page: its four headline cards are taken from the pages that own them. */
export function overviewView({ overview, presence, life, gravity }: ReportModel) {
  return {
    ...overview,
    headline: [
      card(presence.weighted),
      card(life.kpis[0] ?? presence.gross),
      card(gravity.plus),
      card(gravity.openErrors),
    ],
    sharesChart: when(overview.competitive, (c) =>
      shareBars(c.rows, c.fairShare, { title: t('endpoint.overview.competitive-context') }),
    ),
  };
}
