import type { Dimension } from './dimensions.js';
import { MARKET_CARDS } from './market-cards.js';

/**
 * The metric names an alert rule may use: `<endpoint key>[.<field>]`, with `per: <dimension>` for rows
 * broken down by engine, intent, competitor… Plain rows (no dimension) and dimension rows have their
 * own field lists, because `presence.by-engine.weighted` only exists per engine. History series are
 * left out: a rule compares runs, and every run has its own `current`.
 *
 * This is data beside metric-mapping.ts; test/alerts/metric-names.test.ts derives the same lists from
 * the sandbox's payloads and fails when a field is missing here or named here but never produced.
 */
export interface AlertableEndpoint {
  /** Fields of rows without a dimension; the first is what the bare endpoint key means. */
  readonly fields: readonly string[];
  /** Fields of rows per dimension. */
  readonly per?: Partial<Readonly<Record<Exclude<Dimension, '' | 'measurement'>, readonly string[]>>>;
}

const card = { fields: ['current', 'delta'] } as const;
const stance = ['stance.rec', 'stance.adv', 'stance.neu', 'stance.cau', 'stance.neg'];
const positions = ['p1', 'p2', 'p3', 'p4plus'];

export const ALERTABLE: Readonly<Record<string, AlertableEndpoint>> = {
  'overview.competitive-context': { fields: ['fairShare', 'dStar'], per: { competitor: ['share'] } },
  'presence.gross': card,
  'presence.weighted': { fields: ['current', 'delta', 'fairShare', 'dStar'] },
  'presence.position-distribution': {
    fields: [...positions, 'totalAnswers', 'totalAll', ...positions.map((p) => `prev.${p}`)],
  },
  'presence.position-distribution-by-engine': {
    fields: ['timesCited', ...positions, 'deltaTimesCited'].map((f) => `totals.${f}`),
    per: { engine: ['timesCited', ...positions, 'deltaTimesCited'] },
  },
  'presence.by-engine': { fields: [], per: { engine: ['weighted', 'gross', 'delta'] } },
  'presence.by-intent': { fields: [], per: { intent: ['weighted', 'gross', 'deltaW', 'deltaG', 'icv'] } },
  'presence.engine-intent-matrix': { fields: [], per: { engine_intent: ['presence'] } },
  'life.kpi': card,
  'life.recommended-share': card,
  'life.neutral-share': card,
  'life.negative-share': card,
  'life.positive-negative-ratio': card,
  'life.stance-mix': { fields: ['engineCount'], per: { stance: ['share', 'prev'] } },
  'life.scatter': {
    fields: ['weightedPresenceCurrent', 'lifeCurrent'],
    per: { intent: ['weighted', 'life', 'icv'] },
  },
  'life.by-engine': { fields: [], per: { engine: ['life', 'delta', ...stance] } },
  'life.by-intent': { fields: [], per: { intent: ['life', 'delta', 'presence', ...stance, 'icv'] } },
  'gravity.gravity-plus': card,
  'gravity.gravity-minus': card,
  'gravity.open-errors': { fields: ['count', 'delta', 'resolvedSinceBaseline'] },
  'gravity.source-distribution': { fields: [], per: { category: ['share'] } },
  'gravity.by-engine': { fields: [], per: { engine: ['gPlus', 'gMinus', 'gravityPlus', 'gravityMinus'] } },
  'scout.landscape-stats': {
    fields: ['totalDomains', 'totalUrls', 'multiEngineDomains', 'domainsDelta', 'urlsDelta'],
  },
  'scout.source-landscape': {
    fields: ['totalCount', 'engineCount'],
    per: { source: ['citations', 'engines', 'delta'] },
  },
  'scout.references-by-llm': { fields: [], per: { engine: ['weighted'] } },
  'scout.references-by-intent': { fields: [], per: { intent: ['weighted'] } },
  'scout.citation-occurrences': { fields: [], per: { category: ['citations'] } },
  'market.data': {
    fields: [
      ...MARKET_CARDS.flatMap((f) => [`${f}.current`, `${f}.delta`]),
      'fairShare',
      'fairShareMetric.current',
      'fairShareMetric.delta',
    ],
  },
  'market.life-monitored-competitors': { fields: [], per: { competitor: ['share'] } },
};

export interface MetricRef {
  endpoint: string;
  field: string;
}

/**
 * `presence.gross` → (presence.gross, current); `presence.by-engine.weighted` → (presence.by-engine,
 * weighted). The longest endpoint key that prefixes the name wins; without a field, the endpoint's
 * first (`current` for a card). Undefined when no endpoint matches.
 */
export function parseMetric(name: string, per?: string): MetricRef | undefined {
  const endpoint = Object.keys(ALERTABLE)
    .filter((key) => name === key || name.startsWith(`${key}.`))
    .sort((a, b) => b.length - a.length)[0];
  if (!endpoint) return undefined;
  const rest = name.slice(endpoint.length + 1);
  if (rest) return { endpoint, field: rest };
  const def = ALERTABLE[endpoint]!;
  const fields = per ? (def.per?.[per as keyof NonNullable<AlertableEndpoint['per']>] ?? []) : def.fields;
  return { endpoint, field: fields[0] ?? '' };
}

/** The fields the metric may name with this `per` (or none). */
export function fieldsOf(endpoint: string, per?: string): readonly string[] {
  const def = ALERTABLE[endpoint];
  if (!def) return [];
  if (!per) return def.fields;
  return def.per?.[per as keyof NonNullable<AlertableEndpoint['per']>] ?? [];
}

export function dimensionsOf(endpoint: string): string[] {
  return Object.keys(ALERTABLE[endpoint]?.per ?? {});
}
