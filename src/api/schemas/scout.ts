import { z } from 'zod';
import { engineRef, idMap, int, intentStaged, num, obj } from './common.js';

export const landscapeStats = obj({
  totalDomains: int,
  totalUrls: int,
  multiEngineDomains: int,
  historyLabels: z.array(z.string()),
  domainsHistory: z.array(int),
  urlsHistory: z.array(int),
  multiEngineHistory: z.array(int),
  domainsDelta: int,
  urlsDelta: int,
});

export const sourceLandscape = obj({
  sourcesDetail: z.array(
    obj({
      name: z.string(),
      citations: int,
      engines: int,
      control: z.string(),
      sourceType: z.string(),
      delta: int,
    }),
  ),
  totalCount: int,
  engineCount: int,
});

export const referencesByLlm = obj({
  engines: z.array(engineRef),
  dataByEngine: idMap(obj({ weighted: num })),
});

export const referencesByIntent = obj({
  intents: z.array(intentStaged),
  presenceByIntent: idMap(obj({ weighted: num })),
});

/** Each `series` array has one element per entry of `engines`, in the same order. */
export const citationOccurrences = obj({
  engines: z.array(z.string()),
  categories: z.array(obj({ key: z.string(), label: z.string(), color: z.string() })),
  series: z.record(z.string(), z.array(int)),
}).superRefine((value, ctx) => {
  for (const [key, series] of Object.entries(value.series)) {
    if (series.length !== value.engines.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['series', key],
        message: `has ${series.length} values for ${value.engines.length} engines`,
      });
    }
  }
});
