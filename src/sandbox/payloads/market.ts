import type { RunFigures } from '../answers/figures.js';
import { figures, type MetricHandler, measurements, metricCard } from './context.js';

type MarketField = keyof RunFigures['market'];

export const marketHandlers: Record<string, MetricHandler> = {
  data: (ctx) => {
    const field = (key: MarketField, decimals: number) =>
      metricCard(ctx, (i) => figures(ctx, i).market[key], decimals);
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
        fairShare: figures(ctx, ctx.end).fairShare,
        fairShareMetric: metricCard(ctx, (i) => figures(ctx, i).fairShare, 3),
      },
    };
  },
  'life-monitored-competitors': (ctx) => ({ shares: figures(ctx, ctx.end).monitored }),
};
