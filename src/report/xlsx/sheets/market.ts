import * as market from '../../../api/schemas/market.js';
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
const HEADERS: Record<(typeof CARDS)[number], string> = {
  dStar: 'D*',
  tBar: 'T̄',
  totalResponses: 'Total responses',
  responsesWithBrands: 'With brands',
  responsesWithoutBrands: 'Without brands',
  uniqueBrands: 'Unique brands',
};

export const marketSheet: SheetDef = {
  name: 'Market',
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
          { header: 'Run id' },
          { header: 'Measurement' },
          ...CARDS.map((field) => ({ header: HEADERS[field] })),
          { header: 'Weighted presence vs fair share' },
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
          { header: 'Name' },
          { header: 'Share', bar: true },
          { header: 'Brand' },
          { header: 'Targeted' },
        ],
        rows: d.shares.map((s) => [s.name, num(s.share, key, 'share'), s.isBrand, s.isTargeted]),
      });
    });
  },
};
