import * as m from '../dataset/metrics.js';
import { monitoredShares } from '../dataset/shares.js';
import { type MetricHandler, measurements, metricCard } from './context.js';
import { shareContext } from './overview.js';

type MarketField = keyof ReturnType<typeof m.market>;

export const marketHandlers: Record<string, MetricHandler> = {
  data: (ctx) => {
    const field = (key: MarketField, decimals: number) =>
      metricCard(ctx, (i) => m.market(ctx.set.def, i)[key], decimals);
    return {
      measurements: measurements(ctx),
      market: {
        dStar: field('dStar', 3),
        tBar: field('tBar', 2),
        totalResponses: field('totalResponses', 0),
        responsesWithBrands: field('responsesWithBrands', 0),
        responsesWithoutBrands: field('responsesWithoutBrands', 0),
        uniqueBrands: field('uniqueBrands', 0),
      },
      weightedPresence: {
        fairShare: m.fairShare(ctx.set.def, ctx.end),
        fairShareMetric: metricCard(ctx, (i) => m.fairShare(ctx.set.def, i), 3),
      },
    };
  },
  'life-monitored-competitors': (ctx) => ({ shares: monitoredShares(shareContext(ctx), ctx.end) }),
};
