import type { MetricUnit } from '../api/field-units.js';

/**
 * How many answers stand behind each share of a run, read from the run's own rows (the metrics layer
 * copies every count the payloads carry). A share is only as certain as the number of answers it was
 * counted on, and the API does not send that number beside each share, so it is derived here — one
 * place, documented in the README's "How noise is judged" table:
 *
 * | base              | what it counts                         | where it comes from (first found)              |
 * |-------------------|----------------------------------------|------------------------------------------------|
 * | `answers`         | every answer of the run                | `presence.position-distribution` `totalAll`;   |
 * |                   |                                        | `market.data` `totalResponses.current`;        |
 * |                   |                                        | set details `queries_count` × engines          |
 * | `brandAnswers`    | answers naming the brand               | `presence.position-distribution` `totalAnswers`|
 * | `brandedResponses`| answers naming any brand (share of voice)| `market.data` `responsesWithBrands.current`  |
 * | `citations`       | cited sources                          | sum of `scout.source-landscape` `citations`    |
 *
 * Per engine, `answers` is divided by the number of engines (every query is asked once per engine)
 * and `brandAnswers` is that engine's `timesCited` (`presence.position-distribution-by-engine`); per
 * intent both are divided by the number of intents (the API does not say how many queries each intent
 * has: an equal split is the stated assumption); per engine × intent by both counts.
 */

export type SampleBase = 'answers' | 'brandAnswers' | 'brandedResponses' | 'citations';

/** A row as the insight layer reads it (a `metric_values` row or an alert fact). */
export interface InsightRow {
  endpoint: string;
  field: string;
  dimension: string;
  dimension_id: string | null;
  dimension_label: string | null;
  value: number;
  unit: MetricUnit;
}

/** What a run knows besides its rows: the set details (they are not per run, so only a fallback). */
export interface SetDetails {
  queriesCount?: number | null;
  engineCount?: number | null;
}

const STANCE_FIELDS = ['stance.rec', 'stance.adv', 'stance.neu', 'stance.cau', 'stance.neg'];
const POSITIONS = ['p1', 'p2', 'p3', 'p4plus'];

/** `endpoint|field|dimension` → the base the share is counted on. Everything else is not a share. */
const SHARES: ReadonlyMap<string, SampleBase> = new Map<string, SampleBase>([
  ['presence.gross|current|', 'answers'],
  ['presence.weighted|current|', 'answers'],
  ...POSITIONS.map((p) => [`presence.position-distribution|${p}|`, 'brandAnswers'] as const),
  ...POSITIONS.map((p) => [`presence.position-distribution-by-engine|${p}|engine`, 'brandAnswers'] as const),
  ...POSITIONS.map((p) => [`presence.position-distribution-by-engine|totals.${p}|`, 'brandAnswers'] as const),
  ['presence.by-engine|gross|engine', 'answers'],
  ['presence.by-engine|weighted|engine', 'answers'],
  ['presence.by-intent|gross|intent', 'answers'],
  ['presence.by-intent|weighted|intent', 'answers'],
  ['presence.engine-intent-matrix|presence|engine_intent', 'answers'],
  ['life.recommended-share|current|', 'brandAnswers'],
  ['life.neutral-share|current|', 'brandAnswers'],
  ['life.negative-share|current|', 'brandAnswers'],
  ['life.stance-mix|share|stance', 'brandAnswers'],
  ...STANCE_FIELDS.map((f) => [`life.by-engine|${f}|engine`, 'brandAnswers'] as const),
  ...STANCE_FIELDS.map((f) => [`life.by-intent|${f}|intent`, 'brandAnswers'] as const),
  ['life.by-intent|presence|intent', 'answers'],
  ['life.scatter|weighted|intent', 'answers'],
  ['life.scatter|weightedPresenceCurrent|', 'answers'],
  ['gravity.gravity-plus|current|', 'answers'],
  ['gravity.gravity-minus|current|', 'answers'],
  ['gravity.by-engine|gravityPlus|engine', 'answers'],
  ['gravity.by-engine|gravityMinus|engine', 'answers'],
  ['gravity.by-engine|gPlus|engine', 'answers'],
  ['gravity.by-engine|gMinus|engine', 'answers'],
  ['gravity.source-distribution|share|category', 'citations'],
  ['overview.competitive-context|share|competitor', 'brandedResponses'],
  ['market.life-monitored-competitors|share|competitor', 'brandedResponses'],
]);

/** The base a row is a share of, or undefined for a number that is not a share of answers. */
export function shareBase(row: Pick<InsightRow, 'endpoint' | 'field' | 'dimension'>): SampleBase | undefined {
  return SHARES.get(`${row.endpoint}|${row.field}|${row.dimension}`);
}

/** A field that is itself a change or the previous run's value: never a level to compare. */
export function isLevelField(field: string): boolean {
  return !/delta/i.test(field) && !/^prev(\.|$)/.test(field) && field !== 'resolvedSinceBaseline';
}

type Pair = readonly [endpoint: string, field: string];

/**
 * Every row `runSamples` reads, named once for it and for readers that fetch only these across many
 * runs (`sample-rows.ts`). Members of a breakdown (how many engines, intents) are counted on one field
 * that every member carries.
 */
const COUNTS = {
  totalAll: ['presence.position-distribution', 'totalAll'],
  totalResponses: ['market.data', 'totalResponses.current'],
  totalAnswers: ['presence.position-distribution', 'totalAnswers'],
  responsesWithBrands: ['market.data', 'responsesWithBrands.current'],
  citations: ['scout.source-landscape', 'citations'],
  timesCited: ['presence.position-distribution-by-engine', 'timesCited'],
  stanceEngineCount: ['life.stance-mix', 'engineCount'],
  sourceEngineCount: ['scout.source-landscape', 'engineCount'],
  engineMembers: ['presence.by-engine', 'gross'],
  intentMembers: ['presence.by-intent', 'gross'],
  lifeIntentMembers: ['life.by-intent', 'presence'],
} as const satisfies Record<string, Pair>;

const ENGINE_COUNT: readonly Pair[] = [
  COUNTS.engineMembers,
  COUNTS.stanceEngineCount,
  COUNTS.sourceEngineCount,
];
const INTENT_COUNT: readonly Pair[] = [COUNTS.intentMembers, COUNTS.lifeIntentMembers];
const TOTALS: Record<SampleBase, readonly Pair[]> = {
  // The last fallback, queries_count × engines, needs the engine count even for an overall share.
  answers: [COUNTS.totalAll, COUNTS.totalResponses, ...ENGINE_COUNT],
  brandAnswers: [COUNTS.totalAnswers],
  brandedResponses: [COUNTS.responsesWithBrands],
  citations: [COUNTS.citations],
};

/** The (endpoint, field) rows `runSamples` needs for the n of one metric; none for a metric that is not a share. */
export function sampleRowsNeeded(row: Pick<InsightRow, 'endpoint' | 'field' | 'dimension'>): Pair[] {
  const base = shareBase(row);
  if (!base) return [];
  const pairs = [...TOTALS[base]];
  if (row.dimension === 'engine' || row.dimension === 'engine_intent')
    pairs.push(...(base === 'brandAnswers' ? [COUNTS.timesCited] : ENGINE_COUNT));
  if (row.dimension === 'intent' || row.dimension === 'engine_intent') pairs.push(...INTENT_COUNT);
  return pairs;
}

export interface Sample {
  n: number;
  /** Where n came from, in words for the README's table and the export's `n_source` column. */
  source: string;
}

/** The sample sizes of one run: `of(row)` is the n behind a share row, undefined when unknown. */
export interface RunSamples {
  of(row: Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>): Sample | undefined;
}

export function runSamples(rows: readonly InsightRow[], details: SetDetails = {}): RunSamples {
  const one = ([endpoint, field]: Pair) =>
    rows.find((r) => r.endpoint === endpoint && r.field === field && r.dimension === '')?.value;
  const members = ([endpoint, field]: Pair, dimension: string) =>
    new Set(
      rows
        .filter((r) => r.endpoint === endpoint && r.field === field && r.dimension === dimension)
        .map((r) => r.dimension_id),
    ).size;
  const engines =
    members(COUNTS.engineMembers, 'engine') ||
    one(COUNTS.stanceEngineCount) ||
    one(COUNTS.sourceEngineCount) ||
    details.engineCount ||
    0;
  const intents = members(COUNTS.intentMembers, 'intent') || members(COUNTS.lifeIntentMembers, 'intent');
  const totals: Record<SampleBase, Sample | undefined> = {
    answers:
      positive(one(COUNTS.totalAll), 'totalAll') ??
      positive(one(COUNTS.totalResponses), 'totalResponses') ??
      positive(
        details.queriesCount && engines ? details.queriesCount * engines : undefined,
        'queries_count × engines',
      ),
    brandAnswers: positive(one(COUNTS.totalAnswers), 'totalAnswers'),
    brandedResponses: positive(one(COUNTS.responsesWithBrands), 'responsesWithBrands'),
    citations: positive(
      rows
        .filter((r) => r.endpoint === COUNTS.citations[0] && r.field === COUNTS.citations[1])
        .reduce((sum, r) => sum + r.value, 0),
      'citations',
    ),
  };
  const cited = new Map(
    rows
      .filter((r) => r.endpoint === COUNTS.timesCited[0] && r.field === COUNTS.timesCited[1])
      .map((r) => [r.dimension_id, r.value]),
  );
  const split = (sample: Sample | undefined, by: number, what: string): Sample | undefined =>
    sample && by > 0 ? positive(Math.floor(sample.n / by), `${sample.source} ÷ ${by} ${what}`) : undefined;
  return {
    of(row) {
      const base = shareBase(row);
      if (!base) return undefined;
      const total = totals[base];
      switch (row.dimension) {
        case 'engine':
          if (base === 'brandAnswers') return positive(cited.get(row.dimension_id), 'timesCited');
          return split(total, engines, 'engines');
        case 'intent':
          return split(total, intents, 'intents');
        case 'engine_intent':
          return split(split(total, engines, 'engines'), intents, 'intents');
        default:
          return total;
      }
    },
  };
}

function positive(n: number | undefined, source: string): Sample | undefined {
  return n !== undefined && Number.isFinite(n) && n >= 1 ? { n: Math.floor(n), source } : undefined;
}
