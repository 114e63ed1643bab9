import * as market from '../../../api/schemas/market.js';
import { type MessageKey, t } from '../../../locale/locale.js';
import { block, num } from '../context.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';

const CARDS = [
  'dStar',
  'tBar',
  'totalResponses',
  'responsesWithBrands',
  'responsesWithoutBrands',
  'uniqueBrands',
] as const;
const HEADERS: Record<(typeof CARDS)[number], MessageKey> = {
  dStar: 'market.dStar',
  tBar: 'market.tBar',
  totalResponses: 'market.totalResponses',
  responsesWithBrands: 'xlsx.withBrands',
  responsesWithoutBrands: 'xlsx.withoutBrands',
  uniqueBrands: 'market.uniqueBrands',
};

export const marketSheet: SheetDef = {
  name: 'Market',
  titleKey: 'group.market',
  endpoints: ['market.data', 'market.life-monitored-competitors'],
  write(w, ctx) {
    keyFigures(w, ctx, 'market');

    block(w, ctx, 'market.data', market.data, (d) => {
      const key = 'market.data';
      const fair = d.weightedPresence.fairShareMetric;
      // MetricCard histories line up with `measurements` (oldest first), one row per run.
      w.table({
        name: 'History',
        columns: [
          { header: t('cover.runId') },
          { header: t('xlsx.measurement') },
          ...CARDS.map((field) => ({ header: t(HEADERS[field]) })),
          { header: t('xlsx.weightedVsFairShare') },
        ],
        rows: d.measurements.map((m, i) => [
          m.id,
          m.label,
          ...CARDS.map((field) => num(d.market[field].history[i], key, field)),
          num(fair.history[i], key, 'fairShareMetric'),
        ]),
      });
    });

    block(w, ctx, 'market.life-monitored-competitors', market.lifeMonitoredCompetitors, (d) => {
      const key = 'market.life-monitored-competitors';
      w.table({
        name: 'Competitors',
        columns: [
          { header: t('xlsx.name') },
          { header: t('col.share'), bar: true },
          { header: t('xlsx.brand') },
          { header: t('col.targeted') },
        ],
        rows: d.shares.map((s) => [s.name, num(s.share, key, 'share'), s.isBrand, s.isTargeted]),
      });
    });
  },
};
