/**
 * The one unit table of the API's numbers. The report's formatting (src/report/format.ts, the PDF and
 * the workbook) and the tidy metric rows (metric-rows.ts, the `unit` column) both read it, so a number
 * can never be shown as percent in the report and exported as a fraction.
 *
 * The spec leaves units out and warns that payloads mix percent (0..100) and fraction (0..1) scales, so
 * every field gets a documented rule in `FIELD_RULES` below, keyed `<endpoint key>[.<field>]` where
 * `<field>` is the leaf name inside the payload (map and array levels are skipped):
 *
 * | rule       | the API sends                       | shown as            | delta shown as   |
 * |------------|-------------------------------------|---------------------|------------------|
 * | `percent`  | percent points, 0..100              | `42.3%`             | `+2.1 pts`       |
 * | `fraction` | a fraction, 0..1                    | `42.3%` (×100)      | `+2.1 pts` (×100)|
 * | `mix`      | parts of one whole, either scale    | `42.3%`             | `+2.1 pts`       |
 * | `score`    | an index on 0..100 (Life)           | `62.4`              | `+1.2`           |
 * | `count`    | a whole number of things            | `1,234`             | `+12`            |
 * | `decimal`  | an index / effective number         | `4.20`              | `+0.35`          |
 * | `ratio`    | x to 1                              | `2.40×`             | `+0.35×`         |
 *
 * `mix` is the only place with a heuristic, and only for payloads whose parts add up to one whole
 * (stance mix and history, compact stance, position distribution, source distribution): the parts
 * are read as fractions when they sum to at most 1.5, else as percent points (`mixScale`). These
 * are the payloads where the sample data disagrees with itself; every other field has one fixed scale,
 * aligned with the sandbox data set (src/sandbox/dataset.ts).
 */

export type RuleName = 'percent' | 'fraction' | 'mix' | 'score' | 'count' | 'decimal' | 'ratio';

export interface NumberRule {
  readonly name: RuleName;
  /** Digits after the decimal point. */
  readonly decimals: number;
}

export const RULES: Readonly<Record<RuleName, NumberRule>> = {
  percent: { name: 'percent', decimals: 1 },
  fraction: { name: 'fraction', decimals: 1 },
  mix: { name: 'mix', decimals: 1 },
  score: { name: 'score', decimals: 1 },
  count: { name: 'count', decimals: 0 },
  decimal: { name: 'decimal', decimals: 2 },
  ratio: { name: 'ratio', decimals: 2 },
};

/** Field → rule. A key without a field (`presence.gross`) covers current, delta and history. */
export const FIELD_RULES: Readonly<Record<string, RuleName>> = {
  'overview.competitive-context.share': 'fraction',
  'overview.competitive-context.fairShare': 'fraction',
  'overview.competitive-context.dStar': 'fraction',

  'presence.gross': 'percent',
  'presence.weighted': 'percent',
  'presence.weighted.fairShare': 'fraction',
  'presence.weighted.dStar': 'fraction',
  'presence.position-distribution': 'mix',
  'presence.position-distribution.totalAnswers': 'count',
  'presence.position-distribution.totalAll': 'count',
  'presence.position-distribution-by-engine': 'mix',
  'presence.position-distribution-by-engine.timesCited': 'count',
  'presence.position-distribution-by-engine.deltaTimesCited': 'count',
  'presence.by-engine': 'percent',
  'presence.by-intent': 'percent',
  'presence.by-intent.icv': 'count',
  'presence.engine-intent-matrix': 'percent',

  'life.kpi': 'score',
  'life.recommended-share': 'percent',
  'life.neutral-share': 'percent',
  'life.negative-share': 'percent',
  'life.positive-negative-ratio': 'ratio',
  'life.stance-mix': 'mix',
  'life.stance-mix.engineCount': 'count',
  'life.stance-history': 'mix',
  'life.scatter': 'percent',
  'life.scatter.life': 'score',
  'life.scatter.lifeCurrent': 'score',
  'life.scatter.icv': 'count',
  'life.by-engine': 'score',
  'life.by-engine.stance': 'mix',
  'life.by-intent': 'score',
  'life.by-intent.presence': 'percent',
  'life.by-intent.stance': 'mix',
  'life.by-intent.icv': 'count',

  'gravity.gravity-plus': 'percent',
  'gravity.gravity-minus': 'percent',
  'gravity.open-errors': 'count',
  'gravity.source-distribution': 'mix',
  'gravity.by-engine': 'percent',
  'gravity.by-engine.gPlus': 'fraction',
  'gravity.by-engine.gMinus': 'fraction',
  'gravity.trend': 'percent',
  'gravity.source-distribution-history': 'mix',

  'scout.landscape-stats': 'count',
  'scout.source-landscape': 'count',
  'scout.references-by-llm': 'percent',
  'scout.references-by-intent': 'percent',
  'scout.citation-occurrences': 'count',

  'market.data.dStar': 'fraction',
  'market.data.tBar': 'decimal',
  'market.data.totalResponses': 'count',
  'market.data.responsesWithBrands': 'count',
  'market.data.responsesWithoutBrands': 'count',
  'market.data.uniqueBrands': 'count',
  'market.data.fairShare': 'fraction',
  'market.data.fairShareMetric': 'fraction',
  'market.life-monitored-competitors.share': 'fraction',
};

/** The rule for `<endpoint key>.<field>`, falling back to the endpoint's own rule, then `decimal`. */
export function ruleFor(key: string, field?: string): NumberRule {
  const name = (field !== undefined ? FIELD_RULES[`${key}.${field}`] : undefined) ?? FIELD_RULES[key];
  return RULES[name ?? 'decimal'];
}

/** Parts of one whole: fractions when they sum to at most 1.5, else percent points (see header). */
export function mixScale(parts: readonly number[]): 'fraction' | 'percent' {
  const sum = parts.reduce((total, part) => total + (Number.isFinite(part) ? Math.abs(part) : 0), 0);
  return sum <= 1.5 ? 'fraction' : 'percent';
}

/** The `unit` column of a metric row: what scale the API's number is on (see docs/analysing-data.md, metric_values). */
export type MetricUnit = 'percent' | 'fraction' | 'count' | 'ratio' | 'score' | 'unknown';

/**
 * The rule of a field given as a path inside the payload item (`stance.rec`, `market.dStar.current`):
 * the most specific segment that has a rule wins (right to left), then the endpoint's own rule. Unlike
 * `ruleFor` there is no `decimal` fallback: a field the table does not know is `undefined`.
 */
export function ruleNameForPath(key: string, fieldPath: string): RuleName | undefined {
  const segments = fieldPath.split('.');
  const candidates = [fieldPath, ...segments.slice().reverse()];
  for (const candidate of candidates) {
    const name = FIELD_RULES[`${key}.${candidate}`];
    if (name) return name;
  }
  return FIELD_RULES[key];
}

/**
 * The unit of a rule. `mix` needs the scale of its whole (`mixScale` over the parts); `decimal` (an
 * effective number such as the average brands per answer) is a ratio of two counts.
 */
export function unitOfRule(name: RuleName | undefined, mix?: 'fraction' | 'percent'): MetricUnit {
  switch (name) {
    case undefined:
      return 'unknown';
    case 'mix':
      return mix ?? 'unknown';
    case 'decimal':
      return 'ratio';
    default:
      return name;
  }
}
