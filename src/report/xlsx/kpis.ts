import type { z } from 'zod';
import type { MetricGroup } from '../../api/endpoints.js';
import { seriesCard } from '../../api/schemas/common.js';
import * as gravity from '../../api/schemas/gravity.js';
import * as life from '../../api/schemas/life.js';
import * as market from '../../api/schemas/market.js';
import * as overview from '../../api/schemas/overview.js';
import * as presence from '../../api/schemas/presence.js';
import * as scout from '../../api/schemas/scout.js';
import type { MessageKey } from '../../locale/catalog-en.js';
import { t } from '../../locale/locale.js';

/** One headline number of a payload: `field` picks its `format.ts` rule (`ruleFor(key, field)`). */
export interface Figure {
  metric: string;
  field?: string;
  value: number;
  delta?: number;
  /** Text that belongs with the number (the weighted-presence classification). */
  note?: string;
}

export interface KpiSource {
  key: string;
  group: MetricGroup;
  schema: z.ZodType;
  figures(data: never): Figure[];
}

/**
 * Typed against its own schema here; the list below erases the payload type (`never`) so sources of
 * different schemas fit in one array, and callers only pass data that `schema` has just parsed.
 */
function source<S extends z.ZodType>(
  key: string,
  schema: S,
  figures: (data: z.infer<S>) => Figure[],
): KpiSource {
  return {
    key,
    group: key.split('.')[0] as MetricGroup,
    schema,
    figures: figures as (data: never) => Figure[],
  };
}

// Names are catalog keys, translated when the figures are read (inside the workbook's locale).
const card = (key: string, metric: MessageKey) =>
  source(key, seriesCard, (d) => [{ metric: t(metric), value: d.current, delta: d.delta }]);

const marketCards = [
  ['dStar', 'xlsx.kpi.marketDStar'],
  ['tBar', 'xlsx.kpi.marketTBar'],
  ['totalResponses', 'xlsx.kpi.marketTotalResponses'],
  ['responsesWithBrands', 'xlsx.kpi.marketWithBrands'],
  ['responsesWithoutBrands', 'xlsx.kpi.marketWithoutBrands'],
  ['uniqueBrands', 'xlsx.kpi.marketUniqueBrands'],
] as const;

/**
 * The scalar KPIs of every payload, in reading order: the "Key figures" table of each group sheet and
 * the long History sheet both come from this one list, so they always agree.
 */
export const KPI_SOURCES: readonly KpiSource[] = [
  source('overview.competitive-context', overview.competitiveContext, (d) => [
    { metric: t('xlsx.kpi.competitiveFairShare'), field: 'fairShare', value: d.fairShare },
    { metric: t('xlsx.kpi.competitiveDStar'), field: 'dStar', value: d.dStar },
  ]),
  card('presence.gross', 'endpoint.presence.gross'),
  source('presence.weighted', presence.weighted, (d) => [
    {
      metric: t('endpoint.presence.weighted'),
      value: d.current,
      delta: d.delta,
      note: t('xlsx.classification', { value: d.classification }),
    },
    { metric: t('xlsx.kpi.weightedFairShare'), field: 'fairShare', value: d.fairShare },
    { metric: t('xlsx.kpi.weightedDStar'), field: 'dStar', value: d.dStar },
  ]),
  source('presence.position-distribution', presence.positionDistribution, (d) => [
    { metric: t('xlsx.kpi.answersCitingBrand'), field: 'totalAnswers', value: d.totalAnswers },
    { metric: t('xlsx.kpi.allAnswers'), field: 'totalAll', value: d.totalAll },
  ]),
  card('life.kpi', 'endpoint.life.kpi'),
  card('life.recommended-share', 'endpoint.life.recommended-share'),
  card('life.neutral-share', 'endpoint.life.neutral-share'),
  card('life.negative-share', 'endpoint.life.negative-share'),
  card('life.positive-negative-ratio', 'endpoint.life.positive-negative-ratio'),
  source('life.stance-mix', life.stanceMix, (d) => [
    { metric: t('xlsx.kpi.enginesWithStance'), field: 'engineCount', value: d.engineCount },
  ]),
  source('life.scatter', life.scatter, (d) => [
    // format.ts keys fields by leaf name and has no `lifeCurrent`: these are the scatter's `weighted`
    // and `life` at the set level, so they take those fields' rules.
    { metric: t('xlsx.kpi.scatterWeighted'), field: 'weighted', value: d.weightedPresenceCurrent },
    { metric: t('xlsx.kpi.scatterLife'), field: 'life', value: d.lifeCurrent },
  ]),
  card('gravity.gravity-plus', 'endpoint.gravity.gravity-plus'),
  card('gravity.gravity-minus', 'endpoint.gravity.gravity-minus'),
  source('gravity.open-errors', gravity.openErrors, (d) => [
    { metric: t('endpoint.gravity.open-errors'), value: d.count, delta: d.delta },
    {
      metric: t('xlsx.kpi.resolved'),
      field: 'resolvedSinceBaseline',
      value: d.resolvedSinceBaseline,
    },
  ]),
  source('scout.landscape-stats', scout.landscapeStats, (d) => [
    { metric: t('xlsx.domains'), field: 'totalDomains', value: d.totalDomains, delta: d.domainsDelta },
    { metric: t('xlsx.urls'), field: 'totalUrls', value: d.totalUrls, delta: d.urlsDelta },
    { metric: t('xlsx.kpi.multiEngineDomains'), field: 'multiEngineDomains', value: d.multiEngineDomains },
  ]),
  source('scout.source-landscape', scout.sourceLandscape, (d) => [
    { metric: t('xlsx.kpi.sources'), field: 'totalCount', value: d.totalCount },
    { metric: t('xlsx.kpi.enginesCiting'), field: 'engineCount', value: d.engineCount },
  ]),
  source('market.data', market.data, (d) => [
    ...marketCards.map(([field, metric]) => ({
      metric: t(metric),
      field,
      value: d.market[field].current,
      delta: d.market[field].delta,
    })),
    {
      metric: t('xlsx.weightedVsFairShare'),
      field: 'fairShareMetric',
      value: d.weightedPresence.fairShareMetric.current,
      delta: d.weightedPresence.fairShareMetric.delta,
    },
    { metric: t('xlsx.kpi.marketFairShare'), field: 'fairShare', value: d.weightedPresence.fairShare },
  ]),
];

/** The figures of one source in a snapshot, or why there are none. */
export function readFigures(
  source: KpiSource,
  payload: { data: unknown; error: string | null } | undefined,
): Figure[] | undefined {
  const parsed = source.schema.safeParse(payload?.data);
  return parsed.success ? source.figures(parsed.data as never) : undefined;
}
