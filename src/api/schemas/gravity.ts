import { z } from 'zod';
import { engineWithImage, idMap, int, measurement, num, obj, seriesCard } from './common.js';

export const gravityPlus = seriesCard;
export const gravityMinus = seriesCard;

export const openErrors = obj({
  count: num,
  delta: num,
  resolvedSinceBaseline: num,
  history: z.array(num),
  historyLabels: z.array(z.string()),
});

export const sourceDistribution = obj({ owned: num, partner: num, external: num });

export const byEngine = obj({
  engines: z.array(engineWithImage),
  gravityByEngine: idMap(obj({ gPlus: num, gMinus: num, gravityPlus: num, gravityMinus: num })),
});

export const errorRegister = obj({
  engines: z.array(engineWithImage),
  gravityErrors: z.array(
    obj({
      id: z.string(),
      title: z.string(),
      correct: z.string(),
      note: z.string().nullable(),
      wrong: z.array(obj({ engine: int, text: z.string() })),
    }),
  ),
});

export const trend = obj({
  historyPlus: z.array(num),
  historyMinus: z.array(num),
  measurements: z.array(measurement),
});

export const sourceDistributionHistory = obj({
  measurements: z.array(z.string()),
  series: obj({ owned: z.array(num), partner: z.array(num), external: z.array(num) }),
});
