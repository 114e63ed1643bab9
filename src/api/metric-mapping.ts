import type { Dimension } from '../config/dimensions.js';
import { MARKET_CARDS } from '../config/market-cards.js';

/**
 * How each metric endpoint's payload becomes tidy rows (one row per number), as data beside the
 * endpoint catalog. `metric-rows.ts` interprets these parts; a test walks every numeric leaf of every
 * sandbox payload and fails when one lands in no row, so a new endpoint or field needs a line here.
 *
 * Paths are dot-separated keys inside the payload. A row's `field` is the number's path inside the item
 * it belongs to (map keys and array indexes skipped), e.g. `current`, `stance.rec`, `dStar.history`.
 */

export type MappingPart =
  /**
   * Numbers of the object at `at` (the payload itself when absent): one row each, no dimension; the
   * row's field is `{as}.{name}` when `as` is given, else the name.
   */
  | {
      readonly shape: 'fields';
      readonly at?: string;
      readonly as?: string;
      readonly fields: readonly string[];
    }
  /**
   * A history array: one `measurement` row per point, labelled by the parallel `labels` array
   * (strings, or `{id, label}` objects whose id is the run id).
   */
  | { readonly shape: 'history'; readonly values: string; readonly labels: string; readonly field: string }
  /** An object of history arrays sharing one `labels` array: the key becomes the field. */
  | { readonly shape: 'series'; readonly at: string; readonly labels: string }
  /** An object of numbers that are parts of one whole: one row per key, the key is the dimension id. */
  | {
      readonly shape: 'parts';
      readonly at: string;
      readonly dimension: Dimension;
      readonly field: string;
      readonly keys: readonly string[];
    }
  /** An array of objects: one row per numeric field of each item, the item's `id`/`label` name it. */
  | {
      readonly shape: 'list';
      readonly at: string;
      readonly dimension: Dimension;
      readonly id: string;
      readonly label: string;
      readonly fields: readonly string[];
    }
  /**
   * A map keyed by id (`"12": {...}`): one row per number inside each value, recursively; the label
   * comes from the `{id, label}` list at `labels`.
   */
  | { readonly shape: 'map'; readonly at: string; readonly dimension: Dimension; readonly labels: string }
  /** A map of maps of numbers (engine → intent → value): one `engine_intent` row per cell. */
  | {
      readonly shape: 'matrix';
      readonly at: string;
      readonly field: string;
      readonly outerLabels: string;
      readonly innerLabels: string;
    }
  /**
   * Citation counts per category (`series.{category}[i]`), the index naming an engine in the `engines`
   * string list: one `category` row per cell, id `{category key}|{engine}`.
   */
  | {
      readonly shape: 'grid';
      readonly at: string;
      readonly field: string;
      readonly categories: string;
      readonly columns: string;
    };

const card = (field = 'history'): MappingPart[] => [
  { shape: 'fields', fields: ['current', 'delta'] },
  { shape: 'history', values: 'history', labels: 'historyLabels', field },
];

const stances = ['recommended', 'advisedNotFavored', 'neutral', 'cautious', 'negative'];
const positions = ['p1', 'p2', 'p3', 'p4plus'];
const intentsIcv: MappingPart = {
  shape: 'list',
  at: 'intents',
  dimension: 'intent',
  id: 'id',
  label: 'label',
  fields: ['icv'],
};
const marketCard = (name: string): MappingPart[] => [
  { shape: 'fields', at: `market.${name}`, as: name, fields: ['current', 'delta'] },
  { shape: 'history', values: `market.${name}.history`, labels: 'measurements', field: `${name}.history` },
];

/** Endpoint key → the parts its payload is read by. `overview.summary` is text only (metric_summaries). */
export const METRIC_MAPPING: Readonly<Record<string, readonly MappingPart[]>> = {
  'overview.summary': [],
  'overview.competitive-context': [
    { shape: 'fields', fields: ['dStar', 'fairShare'] },
    { shape: 'list', at: 'shares', dimension: 'competitor', id: 'name', label: 'name', fields: ['share'] },
  ],

  'presence.gross': card(),
  'presence.weighted': [...card(), { shape: 'fields', fields: ['fairShare', 'dStar'] }],
  'presence.position-distribution': [
    { shape: 'fields', fields: [...positions, 'totalAnswers', 'totalAll'] },
    { shape: 'fields', at: 'prev', as: 'prev', fields: positions },
  ],
  'presence.position-distribution-by-engine': [
    {
      shape: 'list',
      at: 'engines',
      dimension: 'engine',
      id: 'id',
      label: 'label',
      fields: ['timesCited', ...positions, 'deltaTimesCited'],
    },
    { shape: 'fields', at: 'totals', as: 'totals', fields: ['timesCited', ...positions, 'deltaTimesCited'] },
  ],
  'presence.by-engine': [{ shape: 'map', at: 'presenceByEngine', dimension: 'engine', labels: 'engines' }],
  'presence.by-intent': [
    { shape: 'map', at: 'presenceByIntent', dimension: 'intent', labels: 'intents' },
    intentsIcv,
  ],
  'presence.engine-intent-matrix': [
    {
      shape: 'matrix',
      at: 'engineIntentMatrix',
      field: 'presence',
      outerLabels: 'engines',
      innerLabels: 'intents',
    },
  ],

  'life.kpi': card(),
  'life.recommended-share': card(),
  'life.neutral-share': card(),
  'life.negative-share': card(),
  'life.positive-negative-ratio': card(),
  'life.stance-mix': [
    { shape: 'fields', fields: ['engineCount'] },
    { shape: 'parts', at: '', dimension: 'stance', field: 'share', keys: stances },
    { shape: 'parts', at: 'prev', dimension: 'stance', field: 'prev', keys: stances },
  ],
  'life.stance-history': [{ shape: 'series', at: 'series', labels: 'measurements' }],
  'life.scatter': [
    { shape: 'fields', fields: ['weightedPresenceCurrent', 'lifeCurrent'] },
    { shape: 'map', at: 'presenceByIntent', dimension: 'intent', labels: 'intents' },
    { shape: 'map', at: 'lifeByIntent', dimension: 'intent', labels: 'intents' },
    intentsIcv,
  ],
  'life.by-engine': [{ shape: 'map', at: 'lifeByEngine', dimension: 'engine', labels: 'engines' }],
  'life.by-intent': [
    { shape: 'map', at: 'lifeByIntent', dimension: 'intent', labels: 'intents' },
    intentsIcv,
  ],

  'gravity.gravity-plus': card(),
  'gravity.gravity-minus': card(),
  'gravity.open-errors': [
    { shape: 'fields', fields: ['count', 'delta', 'resolvedSinceBaseline'] },
    { shape: 'history', values: 'history', labels: 'historyLabels', field: 'history' },
  ],
  'gravity.source-distribution': [
    { shape: 'parts', at: '', dimension: 'category', field: 'share', keys: ['owned', 'partner', 'external'] },
  ],
  'gravity.by-engine': [{ shape: 'map', at: 'gravityByEngine', dimension: 'engine', labels: 'engines' }],
  // Only text (claims) and engine ids: they land in metric_error_register.
  'gravity.error-register': [],
  'gravity.trend': [
    { shape: 'history', values: 'historyPlus', labels: 'measurements', field: 'historyPlus' },
    { shape: 'history', values: 'historyMinus', labels: 'measurements', field: 'historyMinus' },
  ],
  'gravity.source-distribution-history': [{ shape: 'series', at: 'series', labels: 'measurements' }],

  'scout.landscape-stats': [
    {
      shape: 'fields',
      fields: ['totalDomains', 'totalUrls', 'multiEngineDomains', 'domainsDelta', 'urlsDelta'],
    },
    { shape: 'history', values: 'domainsHistory', labels: 'historyLabels', field: 'domainsHistory' },
    { shape: 'history', values: 'urlsHistory', labels: 'historyLabels', field: 'urlsHistory' },
    { shape: 'history', values: 'multiEngineHistory', labels: 'historyLabels', field: 'multiEngineHistory' },
  ],
  'scout.source-landscape': [
    { shape: 'fields', fields: ['totalCount', 'engineCount'] },
    {
      shape: 'list',
      at: 'sourcesDetail',
      dimension: 'source',
      id: 'name',
      label: 'name',
      fields: ['citations', 'engines', 'delta'],
    },
  ],
  'scout.references-by-llm': [{ shape: 'map', at: 'dataByEngine', dimension: 'engine', labels: 'engines' }],
  'scout.references-by-intent': [
    { shape: 'map', at: 'presenceByIntent', dimension: 'intent', labels: 'intents' },
  ],
  'scout.citation-occurrences': [
    { shape: 'grid', at: 'series', field: 'citations', categories: 'categories', columns: 'engines' },
  ],

  'market.data': [
    ...MARKET_CARDS.flatMap(marketCard),
    { shape: 'fields', at: 'weightedPresence', fields: ['fairShare'] },
    {
      shape: 'fields',
      at: 'weightedPresence.fairShareMetric',
      as: 'fairShareMetric',
      fields: ['current', 'delta'],
    },
    {
      shape: 'history',
      values: 'weightedPresence.fairShareMetric.history',
      labels: 'measurements',
      field: 'fairShareMetric.history',
    },
  ],
  'market.life-monitored-competitors': [
    { shape: 'list', at: 'shares', dimension: 'competitor', id: 'name', label: 'name', fields: ['share'] },
  ],
};
