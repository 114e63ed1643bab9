import * as market from '../../../api/schemas/market.js';
import { MARKET_CARDS, type MarketCard } from '../../../config/market-cards.js';
import type { MessageKey } from '../../../locale/catalog-en.js';
import { t } from '../../../locale/locale.js';
import { num } from '../context.js';
import { tableBlock, writeBlocks } from '../table-block.js';
import { brandSharesTable } from '../tables.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';

const HEADERS: Record<MarketCard, MessageKey> = {
  dStar: 'market.dStar',
  tBar: 'market.tBar',
  totalResponses: 'market.totalResponses',
  responsesWithBrands: 'xlsx.withBrands',
  responsesWithoutBrands: 'xlsx.withoutBrands',
  uniqueBrands: 'market.uniqueBrands',
};

const history = tableBlock('market.data', market.data, (d, key) => {
  const fair = d.weightedPresence.fairShareMetric;
  // MetricCard histories line up with `measurements` (oldest first), one row per run.
  return {
    name: 'History',
    columns: [
      { header: t('cover.runId') },
      { header: t('xlsx.measurement') },
      ...MARKET_CARDS.map((field) => ({ header: t(HEADERS[field]) })),
      { header: t('xlsx.weightedVsFairShare') },
    ],
    rows: d.measurements.map((m, i) => [
      m.id,
      m.label,
      ...MARKET_CARDS.map((field) => num(d.market[field].history[i], key, field)),
      num(fair.history[i], key, 'fairShareMetric'),
    ]),
  };
});

const competitors = tableBlock(
  'market.life-monitored-competitors',
  market.lifeMonitoredCompetitors,
  (d, key) => brandSharesTable('Competitors', key, d.shares),
);

export const marketSheet: SheetDef = {
  name: 'Market',
  titleKey: 'group.market',
  endpoints: ['market.data', 'market.life-monitored-competitors'],
  write(w, ctx) {
    keyFigures(w, ctx, 'market');
    writeBlocks(w, ctx, [history, competitors]);
  },
};
