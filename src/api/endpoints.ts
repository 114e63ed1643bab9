import type { z } from 'zod';
import * as catalog from './schemas/catalog.js';
import * as gravity from './schemas/gravity.js';
import * as life from './schemas/life.js';
import * as market from './schemas/market.js';
import * as overview from './schemas/overview.js';
import * as presence from './schemas/presence.js';
import * as scout from './schemas/scout.js';

/**
 * The endpoint catalog: every endpoint of the Integration Reporting API, once, as data. The client,
 * the sync, the sandbox and the workbook iterate over it, so adding an endpoint is one entry here plus
 * its schema (and the completeness tests say what else is missing).
 */

export type MetricGroup = 'overview' | 'presence' | 'life' | 'gravity' | 'scout' | 'market';
export type EndpointGroup = 'catalog' | MetricGroup;
export type PathParam = 'brandId' | 'querySetId';

export type ParamRule =
  | { readonly type: 'integer'; readonly min?: number }
  | { readonly type: 'enum'; readonly values: readonly string[] };

export interface EndpointDef<S extends z.ZodType = z.ZodType> {
  /** `group.name`, e.g. `presence.gross`: the stable id used in the store, logs and the workbook. */
  readonly key: string;
  readonly group: EndpointGroup;
  readonly name: string;
  /** Human title for reports. */
  readonly title: string;
  /** Path template relative to `{base_url}`, e.g. `/presence/sets/{querySetId}/gross`. */
  readonly path: string;
  readonly pathParams: readonly PathParam[];
  /** The only query parameters the spec allows; the client refuses any other before sending. */
  readonly params: Readonly<Record<string, ParamRule>>;
  readonly schema: S;
}

export interface MetricEndpointDef<S extends z.ZodType = z.ZodType> extends EndpointDef<S> {
  readonly group: MetricGroup;
}

const runParams = {
  start_run_id: { type: 'integer', min: 1 },
  end_run_id: { type: 'integer', min: 1 },
} as const satisfies Record<string, ParamRule>;

export const SOURCE_LANDSCAPE_SORTS = ['name', 'citations', 'engines', 'delta'] as const;
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

function pathParamsOf(path: string): PathParam[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as PathParam);
}

function catalogEndpoint<S extends z.ZodType>(
  name: string,
  title: string,
  path: string,
  schema: S,
): EndpointDef<S> {
  return {
    key: `catalog.${name}`,
    group: 'catalog',
    name,
    title,
    path,
    pathParams: pathParamsOf(path),
    params: {},
    schema,
  };
}

function metric<S extends z.ZodType>(
  group: MetricGroup,
  name: string,
  title: string,
  schema: S,
  params: Readonly<Record<string, ParamRule>> = runParams,
): MetricEndpointDef<S> {
  return {
    key: `${group}.${name}`,
    group,
    name,
    title,
    path: `/${group === 'overview' ? 'home' : group}/sets/{querySetId}/${name}`,
    pathParams: ['querySetId'],
    params,
    schema,
  };
}

export const catalogEndpoints = {
  brands: catalogEndpoint('brands', 'Brands', '/brands/list', catalog.brandsList),
  querySets: catalogEndpoint(
    'query-sets',
    'Query sets of a brand',
    '/sets/brands/{brandId}/list',
    catalog.querySetsList,
  ),
  details: catalogEndpoint(
    'details',
    'Query set details',
    '/sets/{querySetId}/details',
    catalog.querySetDetails,
  ),
  runs: catalogEndpoint('runs', 'Published runs', '/sets/{querySetId}/runs', catalog.runsList),
} as const;

export const metricEndpoints: readonly MetricEndpointDef[] = [
  metric('overview', 'summary', 'Summary', overview.summary),
  metric('overview', 'competitive-context', 'Competitive context', overview.competitiveContext),

  metric('presence', 'gross', 'Gross presence', presence.gross),
  metric('presence', 'weighted', 'Weighted presence', presence.weighted),
  metric('presence', 'position-distribution', 'Position distribution', presence.positionDistribution),
  metric(
    'presence',
    'position-distribution-by-engine',
    'Position by engine',
    presence.positionDistributionByEngine,
  ),
  metric('presence', 'by-engine', 'Presence by engine', presence.byEngine),
  metric('presence', 'by-intent', 'Presence by intent', presence.byIntent),
  metric('presence', 'engine-intent-matrix', 'Engine × intent presence', presence.engineIntentMatrix),

  metric('life', 'kpi', 'Life', life.kpi),
  metric('life', 'recommended-share', 'Recommended share', life.recommendedShare),
  metric('life', 'neutral-share', 'Neutral share', life.neutralShare),
  metric('life', 'negative-share', 'Negative share', life.negativeShare),
  metric('life', 'positive-negative-ratio', 'Positive/negative ratio', life.positiveNegativeRatio),
  metric('life', 'stance-mix', 'Stance mix', life.stanceMix),
  metric('life', 'stance-history', 'Stance history', life.stanceHistory),
  metric('life', 'scatter', 'Life vs presence by intent', life.scatter),
  metric('life', 'by-engine', 'Life by engine', life.byEngine),
  metric('life', 'by-intent', 'Life by intent', life.byIntent),

  metric('gravity', 'gravity-plus', 'Gravity+', gravity.gravityPlus),
  metric('gravity', 'gravity-minus', 'Gravity−', gravity.gravityMinus),
  metric('gravity', 'open-errors', 'Open errors', gravity.openErrors),
  metric('gravity', 'source-distribution', 'Source distribution', gravity.sourceDistribution),
  metric('gravity', 'by-engine', 'Gravity by engine', gravity.byEngine),
  metric('gravity', 'error-register', 'Error register', gravity.errorRegister),
  metric('gravity', 'trend', 'Gravity trend', gravity.trend),
  metric(
    'gravity',
    'source-distribution-history',
    'Source distribution history',
    gravity.sourceDistributionHistory,
  ),

  metric('scout', 'landscape-stats', 'Source landscape stats', scout.landscapeStats),
  metric('scout', 'source-landscape', 'Source landscape', scout.sourceLandscape, {
    ...runParams,
    sort: { type: 'enum', values: SOURCE_LANDSCAPE_SORTS },
    dir: { type: 'enum', values: SORT_DIRECTIONS },
    limit: { type: 'integer', min: 1 },
  }),
  metric('scout', 'references-by-llm', 'References by engine', scout.referencesByLlm),
  metric('scout', 'references-by-intent', 'References by intent', scout.referencesByIntent),
  metric('scout', 'citation-occurrences', 'Citation occurrences', scout.citationOccurrences),

  metric('market', 'data', 'Market data', market.data),
  // The one metric endpoint without history: the spec allows only end_run_id here.
  metric(
    'market',
    'life-monitored-competitors',
    'Monitored competitors (life)',
    market.lifeMonitoredCompetitors,
    {
      end_run_id: runParams.end_run_id,
    },
  ),
];

export const METRIC_GROUPS: readonly MetricGroup[] = [
  'overview',
  'presence',
  'life',
  'gravity',
  'scout',
  'market',
];

export const allEndpoints: readonly EndpointDef[] = [...Object.values(catalogEndpoints), ...metricEndpoints];

const byKey = new Map(allEndpoints.map((endpoint) => [endpoint.key, endpoint]));

export function endpointByKey(key: string): EndpointDef | undefined {
  return byKey.get(key);
}

export function metricEndpoint(key: string): MetricEndpointDef {
  const endpoint = byKey.get(key);
  if (!endpoint || endpoint.group === 'catalog') throw new Error(`unknown metric endpoint ${key}`);
  return endpoint as MetricEndpointDef;
}

/** The payload type of a metric endpoint, by key: `PayloadOf<typeof presence.gross>`. */
export type PayloadOf<S extends z.ZodType> = z.infer<S>;
