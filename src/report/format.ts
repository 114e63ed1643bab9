/**
 * The one place that decides how numbers show, in the PDF and (through `excelFormat`) in the workbook.
 * Digits, separators and the percent sign follow the locale of the document being built (`Intl`,
 * through locale/locale.ts); the Excel formats stay locale-free because Excel localises them itself.
 * Which rule (percent, fraction, mix, score, count, decimal, ratio) each field follows is the unit table
 * in src/api/field-units.ts, shared with the tidy metric rows so the two can never disagree.
 */

import type { NumberRule } from '../api/field-units.js';
import { currentLocale, t } from '../locale/locale.js';

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

export type Polarity = 'up' | 'down' | 'neutral';

/** Which direction is good news for a metric (`<endpoint key>[.<field>]`). */
export function polarityOf(key: string, field?: string): Polarity {
  const full = field !== undefined ? `${key}.${field}` : key;
  if (DOWN_IS_GOOD.has(full) || DOWN_IS_GOOD.has(key)) return 'down';
  if (NEUTRAL.has(full) || NEUTRAL.has(key)) return 'neutral';
  return 'up';
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

/**
 * A value already in display units (percent points for shares, as KPI histories and charts hold
 * them), written as `formatValue` writes the API's number: for a sparkline's alternative text.
 */
export function formatDisplay(value: number, rule: NumberRule): string {
  return formatValue(rule.name === 'fraction' ? value / 100 : value, rule);
}

export type Direction = 'up' | 'down' | 'flat';
export type Tone = 'good' | 'bad' | 'neutral';

export interface DeltaView {
  /** `+2.1 pts`, `−12`, `±0.0 pts`; `—` when missing. */
  text: string;
  direction: Direction;
  /**
   * Good or bad news, shown as colour: only on a likely change (`neutral` otherwise), so no colour
   * suggests a judgement that was not made.
   */
  tone: Tone;
  /** ▲ or ▼ on a likely change; empty for every other change (unjudged, no clear change, flat). */
  arrow: string;
  /** "better" or "worse" beside a likely change's arrow, so good and bad are never told by colour alone. */
  meaning: string;
  /** The change in words for assistive technology: "down 8.3 points, likely change, worse". */
  said: string;
  /** Which direction is good news for the metric: what a likely verdict colours the change by. */
  polarity: Polarity;
  available: boolean;
  /**
   * Which figure the change is of (endpoint, field, dimension), when the run's insight compared it:
   * a document counts the likely changes it shows by figure, so one shown twice is counted once.
   */
  figure?: string;
  /**
   * The noise model's verdict, judged with the document's other changes (model/family.ts): `likely`
   * (arrow, colour and meaning: `markLikely`) or `unclear` (no clear change: plain); absent when it
   * could not judge (not a share, no n), and then plain too.
   */
  verdict?: 'likely' | 'unclear';
  /** The judged change's interval as it is, "−12.5 to −4.6 pts"; absent when not judged. */
  interval?: string;
  /**
   * Why a change is shown unjudged although it is a share: "as reported by the service" (no earlier
   * stored run), a value out of range, copies that disagree (report/model/noise-delta.ts).
   */
  note?: string;
  /** Size of the change as printed (points or the number), for ranking the story's sentences. */
  size?: number;
}

/** A change as the reader gets it, plain: signed, with its direction in words ("not judged" until judged). */
export function formatDelta(
  delta: unknown,
  rule: NumberRule,
  polarity: Polarity,
  mix?: 'fraction' | 'percent',
): DeltaView {
  const plain = { tone: 'neutral', arrow: '', meaning: '', polarity } as const;
  if (!isNumber(delta))
    return { ...plain, text: MISSING, direction: 'flat', said: MISSING, available: false };
  const shown = rule.name === 'count' ? delta : toPercentPoints(delta, rule, mix);
  const decimals = rule.name === 'count' ? 0 : rule.decimals;
  // Flat means "rounds to zero at the shown precision", so the arrow never contradicts the number.
  const rounded = Number(shown.toFixed(decimals));
  const direction: Direction = rounded > 0 ? 'up' : rounded < 0 ? 'down' : 'flat';
  const magnitude = fixed(Math.abs(shown), decimals);
  const sign = direction === 'up' ? '+' : direction === 'down' ? '−' : '±';
  const signed = `${sign}${magnitude}`;
  const points = rule.name === 'percent' || rule.name === 'fraction' || rule.name === 'mix';
  const text = points ? t('delta.points', { value: signed }) : rule.name === 'ratio' ? `${signed}×` : signed;
  const amount = points
    ? t('delta.saidPoints', { value: magnitude })
    : rule.name === 'ratio'
      ? `${magnitude}×`
      : magnitude;
  const moved =
    direction === 'up'
      ? t('delta.saidUp', { value: amount })
      : direction === 'down'
        ? t('delta.saidDown', { value: amount })
        : t('delta.saidFlat');
  return {
    ...plain,
    text,
    direction,
    said: said(moved, 'unknown'),
    available: true,
    size: Math.abs(rounded),
  };
}

/**
 * "down 8.3 points, not judged": direction, size and verdict as a screen reader says them. The
 * direction comes first, before a comma no locale's number contains, so a verdict can replace the rest.
 */
function said(moved: string, verdict: 'likely' | 'unclear' | 'unknown', meaning = ''): string {
  return [moved, t(`verdict.${verdict}`), meaning].filter(Boolean).join(', ');
}

/**
 * What the noise model's verdict does to a change: a likely change gets its arrow, its colour and
 * "better"/"worse" (none for a flat change or a metric with no good direction); no clear change stays
 * plain. The words said for it name the verdict either way.
 */
export function withVerdict(view: DeltaView, verdict: 'likely' | 'unclear'): DeltaView {
  const judged: DeltaView = { ...view, verdict, tone: 'neutral', arrow: '', meaning: '' };
  if (verdict === 'likely' && view.direction !== 'flat') {
    judged.arrow = view.direction === 'up' ? '▲' : '▼';
    if (view.polarity !== 'neutral') {
      judged.tone = (view.direction === 'up') === (view.polarity === 'up') ? 'good' : 'bad';
      judged.meaning = t(judged.tone === 'good' ? 'delta.better' : 'delta.worse');
    }
  }
  judged.said = said(view.said.split(', ')[0]!, verdict, judged.meaning);
  return judged;
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
