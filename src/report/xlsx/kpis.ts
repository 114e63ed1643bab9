import type { z } from 'zod';
import type { MetricGroup } from '../../api/endpoints.js';
import { seriesCard } from '../../api/schemas/common.js';
import * as gravity from '../../api/schemas/gravity.js';
import * as life from '../../api/schemas/life.js';
import * as market from '../../api/schemas/market.js';
import * as overview from '../../api/schemas/overview.js';
import * as presence from '../../api/schemas/presence.js';
import * as scout from '../../api/schemas/scout.js';

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

const card = (key: string, metric: string) =>
  source(key, seriesCard, (d) => [{ metric, value: d.current, delta: d.delta }]);

const marketCards = [
  ['dStar', 'Market D*'],
  ['tBar', 'Market T̄'],
  ['totalResponses', 'Market total responses'],
  ['responsesWithBrands', 'Market responses with brands'],
  ['responsesWithoutBrands', 'Market responses without brands'],
  ['uniqueBrands', 'Market unique brands'],
] as const;

/**
 * The scalar KPIs of every payload, in reading order: the "Key figures" table of each group sheet and
 * the long History sheet both come from this one list, so they always agree.
 */
export const KPI_SOURCES: readonly KpiSource[] = [
  source('overview.competitive-context', overview.competitiveContext, (d) => [
    { metric: 'Competitive fair share', field: 'fairShare', value: d.fairShare },
    { metric: 'Competitive D*', field: 'dStar', value: d.dStar },
  ]),
  card('presence.gross', 'Gross presence'),
  source('presence.weighted', presence.weighted, (d) => [
    {
      metric: 'Weighted presence',
      value: d.current,
      delta: d.delta,
      note: `Classification: ${d.classification}`,
    },
    { metric: 'Weighted presence fair share', field: 'fairShare', value: d.fairShare },
    { metric: 'Weighted presence D*', field: 'dStar', value: d.dStar },
  ]),
  source('presence.position-distribution', presence.positionDistribution, (d) => [
    { metric: 'Answers citing the brand', field: 'totalAnswers', value: d.totalAnswers },
    { metric: 'All answers', field: 'totalAll', value: d.totalAll },
  ]),
  card('life.kpi', 'Life'),
  card('life.recommended-share', 'Recommended share'),
  card('life.neutral-share', 'Neutral share'),
  card('life.negative-share', 'Negative share'),
  card('life.positive-negative-ratio', 'Positive/negative ratio'),
  source('life.stance-mix', life.stanceMix, (d) => [
    { metric: 'Engines with a stance', field: 'engineCount', value: d.engineCount },
  ]),
  source('life.scatter', life.scatter, (d) => [
    // format.ts keys fields by leaf name and has no `lifeCurrent`: these are the scatter's `weighted`
    // and `life` at the set level, so they take those fields' rules.
    { metric: 'Weighted presence (intent scatter)', field: 'weighted', value: d.weightedPresenceCurrent },
    { metric: 'Life (intent scatter)', field: 'life', value: d.lifeCurrent },
  ]),
  card('gravity.gravity-plus', 'Gravity+'),
  card('gravity.gravity-minus', 'Gravity−'),
  source('gravity.open-errors', gravity.openErrors, (d) => [
    { metric: 'Open errors', value: d.count, delta: d.delta },
    {
      metric: 'Errors resolved since baseline',
      field: 'resolvedSinceBaseline',
      value: d.resolvedSinceBaseline,
    },
  ]),
  source('scout.landscape-stats', scout.landscapeStats, (d) => [
    { metric: 'Domains', field: 'totalDomains', value: d.totalDomains, delta: d.domainsDelta },
    { metric: 'URLs', field: 'totalUrls', value: d.totalUrls, delta: d.urlsDelta },
    { metric: 'Domains cited by several engines', field: 'multiEngineDomains', value: d.multiEngineDomains },
  ]),
  source('scout.source-landscape', scout.sourceLandscape, (d) => [
    { metric: 'Sources', field: 'totalCount', value: d.totalCount },
    { metric: 'Engines citing sources', field: 'engineCount', value: d.engineCount },
  ]),
  source('market.data', market.data, (d) => [
    ...marketCards.map(([field, metric]) => ({
      metric,
      field,
      value: d.market[field].current,
      delta: d.market[field].delta,
    })),
    {
      metric: 'Weighted presence vs fair share',
      field: 'fairShareMetric',
      value: d.weightedPresence.fairShareMetric.current,
      delta: d.weightedPresence.fairShareMetric.delta,
    },
    { metric: 'Market fair share', field: 'fairShare', value: d.weightedPresence.fairShare },
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
