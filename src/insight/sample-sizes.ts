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
  const one = (endpoint: string, field: string) =>
    rows.find((r) => r.endpoint === endpoint && r.field === field && r.dimension === '')?.value;
  const members = (endpoint: string, dimension: string) =>
    new Set(
      rows.filter((r) => r.endpoint === endpoint && r.dimension === dimension).map((r) => r.dimension_id),
    ).size;
  const engines =
    members('presence.by-engine', 'engine') ||
    one('life.stance-mix', 'engineCount') ||
    one('scout.source-landscape', 'engineCount') ||
    details.engineCount ||
    0;
  const intents = members('presence.by-intent', 'intent') || members('life.by-intent', 'intent');
  const totals: Record<SampleBase, Sample | undefined> = {
    answers:
      positive(one('presence.position-distribution', 'totalAll'), 'totalAll') ??
      positive(one('market.data', 'totalResponses.current'), 'totalResponses') ??
      positive(
        details.queriesCount && engines ? details.queriesCount * engines : undefined,
        'queries_count × engines',
      ),
    brandAnswers: positive(one('presence.position-distribution', 'totalAnswers'), 'totalAnswers'),
    brandedResponses: positive(one('market.data', 'responsesWithBrands.current'), 'responsesWithBrands'),
    citations: positive(
      rows
        .filter((r) => r.endpoint === 'scout.source-landscape' && r.field === 'citations')
        .reduce((sum, r) => sum + r.value, 0),
      'citations',
    ),
  };
  const cited = new Map(
    rows
      .filter((r) => r.endpoint === 'presence.position-distribution-by-engine' && r.field === 'timesCited')
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
