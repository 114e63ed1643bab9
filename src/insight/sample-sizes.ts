import type { MetricUnit } from '../api/field-units.js';

/**
 * How many answers stand behind each share of a run, read from the run's own rows (the metrics layer
 * copies every count the payloads carry). A share is only as certain as the number of answers it was
 * counted on, and the API does not send that number beside each share, so it is derived here — one
 * place, documented in docs/analysing-data.md ("Which figures are judged, on which n"):
 *
 * | base              | what it counts                         | where it comes from (first found)              |
 * |-------------------|----------------------------------------|------------------------------------------------|
 * | `answers`         | every answer of the run                | `presence.position-distribution` `totalAll`;   |
 * |                   |                                        | `market.data` `totalResponses.current`;        |
 * |                   |                                        | set details `queries_count` × engines          |
 * | `brandAnswers`    | answers naming the brand               | `presence.position-distribution` `totalAnswers`|
 *
 * Per engine, `answers` is divided by the number of engines (every query is asked once per engine:
 * the split is exact) and `brandAnswers` is that engine's `timesCited`
 * (`presence.position-distribution-by-engine`).
 *
 * Judged only where the payloads give n: nothing per intent, per engine × intent or stance by intent
 * (the API does not say how many queries an intent has, and an equal split calls a 10-query intent
 * 40), no source share (citations cluster within answers: they are not independent trials), no share
 * of voice (a share of brand mentions, not of answers). Those are `unknown`, never `likely`.
 */

export type SampleBase = 'answers' | 'brandAnswers';

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

/** `endpoint|field|dimension` → the base the share is counted on. Everything else is not judged. */
const SHARES: ReadonlyMap<string, SampleBase> = new Map<string, SampleBase>([
  ['presence.gross|current|', 'answers'],
  ['presence.weighted|current|', 'answers'],
  ...POSITIONS.map((p) => [`presence.position-distribution|${p}|`, 'brandAnswers'] as const),
  ...POSITIONS.map((p) => [`presence.position-distribution-by-engine|${p}|engine`, 'brandAnswers'] as const),
  ...POSITIONS.map((p) => [`presence.position-distribution-by-engine|totals.${p}|`, 'brandAnswers'] as const),
  ['presence.by-engine|gross|engine', 'answers'],
  ['presence.by-engine|weighted|engine', 'answers'],
  ['life.recommended-share|current|', 'brandAnswers'],
  ['life.neutral-share|current|', 'brandAnswers'],
  ['life.negative-share|current|', 'brandAnswers'],
  ['life.stance-mix|share|stance', 'brandAnswers'],
  ...STANCE_FIELDS.map((f) => [`life.by-engine|${f}|engine`, 'brandAnswers'] as const),
  ['life.scatter|weightedPresenceCurrent|', 'answers'],
  ['gravity.gravity-plus|current|', 'answers'],
  ['gravity.gravity-minus|current|', 'answers'],
  ['gravity.by-engine|gravityPlus|engine', 'answers'],
  ['gravity.by-engine|gravityMinus|engine', 'answers'],
  ['gravity.by-engine|gPlus|engine', 'answers'],
  ['gravity.by-engine|gMinus|engine', 'answers'],
]);

/**
 * Rows that repeat a figure another row already carries: judged once, under that row (changes.ts
 * `judgeRows`), so a family never counts one figure twice. `endpoint|field|dimension` → the
 * figure's own row; a stance of the mix → its share card.
 */
type FigureRow = readonly [endpoint: string, field: string, dimension: string, id: string | null];

const SAME_FIGURE: ReadonlyMap<string, (id: string | null) => FigureRow | undefined> = new Map<
  string,
  (id: string | null) => FigureRow | undefined
>([
  ['life.scatter|weightedPresenceCurrent|', () => ['presence.weighted', 'current', '', null]],
  ...POSITIONS.map((p): [string, () => FigureRow] => [
    `presence.position-distribution-by-engine|totals.${p}|`,
    () => ['presence.position-distribution', p, '', null],
  ]),
  ['gravity.by-engine|gPlus|engine', (id) => ['gravity.by-engine', 'gravityPlus', 'engine', id]],
  ['gravity.by-engine|gMinus|engine', (id) => ['gravity.by-engine', 'gravityMinus', 'engine', id]],
  [
    'life.stance-mix|share|stance',
    (id) => {
      const card = STANCE_CARDS[id ?? ''];
      return card ? [card, 'current', '', null] : undefined;
    },
  ],
]);

const STANCE_CARDS: Readonly<Record<string, string>> = {
  recommended: 'life.recommended-share',
  neutral: 'life.neutral-share',
  negative: 'life.negative-share',
};

/** The figure a row shows, as a key (`endpoint, field, dimension, id` joined by NUL): rows of one figure share it. */
export function figureOf(row: Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>): string {
  const same = SAME_FIGURE.get(`${row.endpoint}|${row.field}|${row.dimension}`)?.(row.dimension_id);
  return (same ?? [row.endpoint, row.field, row.dimension, row.dimension_id])
    .map((part) => part ?? '')
    .join('\u0000');
}

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
 * runs. Members of a breakdown (how many engines, intents) are counted on one field
 * that every member carries.
 */
const COUNTS = {
  totalAll: ['presence.position-distribution', 'totalAll'],
  totalResponses: ['market.data', 'totalResponses.current'],
  totalAnswers: ['presence.position-distribution', 'totalAnswers'],
  timesCited: ['presence.position-distribution-by-engine', 'timesCited'],
  stanceEngineCount: ['life.stance-mix', 'engineCount'],
  sourceEngineCount: ['scout.source-landscape', 'engineCount'],
  engineMembers: ['presence.by-engine', 'gross'],
} as const satisfies Record<string, Pair>;

/** The endpoints whose rows `runSamples` reads: a reader need derive no other payload's rows for n. */
export const COUNT_ENDPOINTS: ReadonlySet<string> = new Set(
  Object.values(COUNTS).map(([endpoint]) => endpoint),
);

const ENGINE_COUNT: readonly Pair[] = [
  COUNTS.engineMembers,
  COUNTS.stanceEngineCount,
  COUNTS.sourceEngineCount,
];
const TOTALS: Record<SampleBase, readonly Pair[]> = {
  // The last fallback, queries_count × engines, needs the engine count even for an overall share.
  answers: [COUNTS.totalAll, COUNTS.totalResponses, ...ENGINE_COUNT],
  brandAnswers: [COUNTS.totalAnswers],
};

/** The (endpoint, field) rows `runSamples` needs for the n of one metric; none for a metric that is not a share. */
export function sampleRowsNeeded(row: Pick<InsightRow, 'endpoint' | 'field' | 'dimension'>): Pair[] {
  const base = shareBase(row);
  if (!base) return [];
  const pairs = [...TOTALS[base]];
  if (row.dimension === 'engine')
    pairs.push(...(base === 'brandAnswers' ? [COUNTS.timesCited] : ENGINE_COUNT));
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
  const totals: Record<SampleBase, Sample | undefined> = {
    answers:
      positive(one(COUNTS.totalAll), 'totalAll') ??
      positive(one(COUNTS.totalResponses), 'totalResponses') ??
      positive(
        details.queriesCount && engines ? details.queriesCount * engines : undefined,
        'queries_count × engines',
      ),
    brandAnswers: positive(one(COUNTS.totalAnswers), 'totalAnswers'),
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
        default:
          return total;
      }
    },
  };
}

function positive(n: number | undefined, source: string): Sample | undefined {
  return n !== undefined && Number.isFinite(n) && n >= 1 ? { n: Math.floor(n), source } : undefined;
}
