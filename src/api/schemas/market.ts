import { z } from 'zod';
import { measurement, metricCard, num, obj, shareEntry } from './common.js';

export const data = obj({
  measurements: z.array(measurement),
  market: obj({
    dStar: metricCard,
    tBar: metricCard,
    totalResponses: metricCard,
    responsesWithBrands: metricCard,
    responsesWithoutBrands: metricCard,
    uniqueBrands: metricCard,
  }),
  weightedPresence: obj({ fairShare: num, fairShareMetric: metricCard }),
});

export const lifeMonitoredCompetitors = obj({ shares: z.array(shareEntry) });
