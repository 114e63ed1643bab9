/**
 * The one place that decides how numbers show, in the PDF and (through `excelFormat`) in the workbook.
 * Digits, separators and the percent sign follow the locale of the document being built (`Intl`,
 * through locale/locale.ts); the Excel formats stay locale-free because Excel localises them itself.
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

import { currentLocale, t } from './locale/locale.js';

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

/**
 * Metrics where a rise is bad news: their deltas are colored red when they go up. Everything else is
 * good when it rises, except the `NEUTRAL` ones (sizes of the market, not the brand's performance).
 */
export const DOWN_IS_GOOD: ReadonlySet<string> = new Set([
  'life.negative-share',
  'gravity.gravity-minus',
  'gravity.by-engine.gravityMinus',
  'gravity.by-engine.gMinus',
  'gravity.open-errors',
]);

export const NEUTRAL: ReadonlySet<string> = new Set([
  'life.neutral-share',
  'market.data.dStar',
  'market.data.tBar',
  'market.data.totalResponses',
  'market.data.responsesWithBrands',
  'market.data.responsesWithoutBrands',
  'market.data.uniqueBrands',
  'overview.competitive-context.dStar',
  'presence.weighted.dStar',
  'scout.landscape-stats',
  'scout.source-landscape',
  'presence.position-distribution-by-engine.deltaTimesCited',
]);

/** The rule for `<endpoint key>.<field>`, falling back to the endpoint's own rule, then `decimal`. */
export function ruleFor(key: string, field?: string): NumberRule {
  const name = (field !== undefined ? FIELD_RULES[`${key}.${field}`] : undefined) ?? FIELD_RULES[key];
  return RULES[name ?? 'decimal'];
}

export type Polarity = 'up' | 'down' | 'neutral';

/** Which direction is good news for a metric (`<endpoint key>[.<field>]`). */
export function polarityOf(key: string, field?: string): Polarity {
  const full = field !== undefined ? `${key}.${field}` : key;
  if (DOWN_IS_GOOD.has(full) || DOWN_IS_GOOD.has(key)) return 'down';
  if (NEUTRAL.has(full) || NEUTRAL.has(key)) return 'neutral';
  return 'up';
}

/** Parts of one whole: fractions when they sum to at most 1.5, else percent points (see header). */
export function mixScale(parts: readonly number[]): 'fraction' | 'percent' {
  const sum = parts.reduce((total, part) => total + (Number.isFinite(part) ? Math.abs(part) : 0), 0);
  return sum <= 1.5 ? 'fraction' : 'percent';
}

/**
 * Normalises a value to percent points (0..100) for charts and comparisons. `mix` needs the scale its
 * whole was read with (`mixScale`); other rules carry their own.
 */
export function toPercentPoints(value: number, rule: NumberRule, mix?: 'fraction' | 'percent'): number {
  if (rule.name === 'fraction' || (rule.name === 'mix' && mix === 'fraction')) return value * 100;
  return value;
}

export const MISSING = '—';

/** Grouped, fixed decimals, in the locale of the document being built (`withLocale`). */
function fixed(value: number, decimals: number): string {
  return currentLocale().number(value, decimals);
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** A value as people read it: `42.3%`, `1,234`, `4.20`, `2.40×`; `—` when missing or not a number. */
export function formatValue(value: unknown, rule: NumberRule, mix?: 'fraction' | 'percent'): string {
  if (!isNumber(value)) return MISSING;
  switch (rule.name) {
    case 'percent':
    case 'fraction':
    case 'mix':
      return currentLocale().percent(toPercentPoints(value, rule, mix), rule.decimals);
    case 'count':
      return fixed(value, 0);
    case 'ratio':
      return `${fixed(value, rule.decimals)}×`;
    default: // score, decimal
      return fixed(value, rule.decimals);
  }
}

export type Direction = 'up' | 'down' | 'flat';
export type Tone = 'good' | 'bad' | 'neutral';

export interface DeltaView {
  /** `+2.1 pts`, `−12`, `±0.0 pts`; `—` when missing. */
  text: string;
  direction: Direction;
  /** Whether this change is good news, given the metric's polarity. */
  tone: Tone;
  /** ▲ or ▼; empty when flat. */
  arrow: string;
  available: boolean;
}

/** A change, signed, with its direction and whether that direction is good news for the metric. */
export function formatDelta(
  delta: unknown,
  rule: NumberRule,
  polarity: Polarity,
  mix?: 'fraction' | 'percent',
): DeltaView {
  if (!isNumber(delta))
    return { text: MISSING, direction: 'flat', tone: 'neutral', arrow: '', available: false };
  const shown = rule.name === 'count' ? delta : toPercentPoints(delta, rule, mix);
  const decimals = rule.name === 'count' ? 0 : rule.decimals;
  // Flat means "rounds to zero at the shown precision", so the arrow never contradicts the number.
  const rounded = Number(shown.toFixed(decimals));
  const direction: Direction = rounded > 0 ? 'up' : rounded < 0 ? 'down' : 'flat';
  const magnitude = fixed(Math.abs(shown), decimals);
  const sign = direction === 'up' ? '+' : direction === 'down' ? '−' : '±';
  const tone: Tone =
    direction === 'flat' || polarity === 'neutral'
      ? 'neutral'
      : (direction === 'up') === (polarity === 'up')
        ? 'good'
        : 'bad';
  const arrow = direction === 'up' ? '▲' : direction === 'down' ? '▼' : '';
  const signed = `${sign}${magnitude}`;
  const text =
    rule.name === 'percent' || rule.name === 'fraction' || rule.name === 'mix'
      ? t('delta.points', { value: signed })
      : rule.name === 'ratio'
        ? `${signed}×`
        : signed;
  return { text, direction, tone, arrow, available: true };
}

/**
 * The Excel number format matching `formatValue` / `formatDelta`, for cells holding the API's raw
 * number (percent-point values keep their 0..100 number and get a literal `%`; fractions use Excel's
 * own `%`, which multiplies by 100). For `mix`, pass the scale `mixScale` found.
 */
export function excelFormat(
  rule: NumberRule,
  kind: 'value' | 'delta' = 'value',
  mix?: 'fraction' | 'percent',
): string {
  const digits = rule.decimals > 0 ? `0.${'0'.repeat(rule.decimals)}` : '0';
  const asFraction = rule.name === 'fraction' || (rule.name === 'mix' && mix === 'fraction');
  const signed = (body: string) => `+${body};-${body};${body}`;
  switch (rule.name) {
    case 'percent':
    case 'fraction':
    case 'mix': {
      if (kind === 'value') return asFraction ? `${digits}%` : `${digits}"%"`;
      return asFraction ? signed(`${digits}%`) : signed(`${digits}" pts"`);
    }
    case 'count':
      return kind === 'value' ? '#,##0' : signed('#,##0');
    case 'ratio':
      return kind === 'value' ? `${digits}"×"` : signed(`${digits}"×"`);
    default:
      return kind === 'value' ? digits : signed(digits);
  }
}
