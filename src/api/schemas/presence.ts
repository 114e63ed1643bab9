import { z } from 'zod';
import {
  engineRef,
  engineWithImage,
  idMap,
  int,
  intentFull,
  intentRef,
  num,
  obj,
  seriesCard,
} from './common.js';

export const gross = seriesCard;

export const weighted = seriesCard.extend({ fairShare: num, dStar: num, classification: z.string() });

const positions = { p1: num, p2: num, p3: num, p4plus: num };

export const positionDistribution = obj({
  ...positions,
  totalAnswers: int,
  totalAll: int,
  prev: obj(positions),
});

export const positionDistributionByEngine = obj({
  engines: z.array(engineRef.extend({ timesCited: int, ...positions, deltaTimesCited: int })),
  totals: obj({ timesCited: int, ...positions, deltaTimesCited: int }),
});

export const byEngine = obj({
  engines: z.array(engineWithImage),
  presenceByEngine: idMap(obj({ weighted: num, gross: num, delta: num })),
});

export const byIntent = obj({
  intents: z.array(intentFull),
  presenceByIntent: idMap(obj({ weighted: num, gross: num, deltaW: num, deltaG: num })),
});

export const engineIntentMatrix = obj({
  engines: z.array(engineWithImage),
  intents: z.array(intentRef),
  engineIntentMatrix: idMap(idMap(num)),
});
