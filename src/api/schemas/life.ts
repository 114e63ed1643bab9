import { z } from 'zod';
import {
  compactStance,
  engineWithImage,
  idMap,
  int,
  intentFull,
  num,
  obj,
  seriesCard,
  stanceSet,
} from './common.js';

export const kpi = seriesCard;
export const recommendedShare = seriesCard;
export const neutralShare = seriesCard;
export const negativeShare = seriesCard;
export const positiveNegativeRatio = seriesCard;

export const stanceMix = stanceSet.extend({ engineCount: int, prev: stanceSet });

export const stanceHistory = obj({
  measurements: z.array(z.string()),
  series: obj({
    recommended: z.array(num),
    advisedNotFavored: z.array(num),
    neutral: z.array(num),
    cautious: z.array(num),
    negative: z.array(num),
  }),
});

export const scatter = obj({
  intents: z.array(intentFull),
  presenceByIntent: idMap(obj({ weighted: num })),
  lifeByIntent: idMap(obj({ life: num })),
  weightedPresenceCurrent: num,
  lifeCurrent: num,
});

export const byEngine = obj({
  engines: z.array(engineWithImage),
  lifeByEngine: idMap(obj({ life: num, delta: num, stance: compactStance })),
});

export const byIntent = obj({
  intents: z.array(intentFull),
  lifeByIntent: idMap(obj({ life: num, delta: num, presence: num, stance: compactStance })),
});
