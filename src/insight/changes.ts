import { type FamilyMethod, judgeFamily } from './families.js';
import { newcombeDifference, newcombePValue } from './interval.js';
import { zOfTwoSided } from './normal.js';
import {
  figureOf,
  type InsightRow,
  isLevelField,
  type RunSamples,
  runSamples,
  type SetDetails,
} from './sample-sizes.js';

/**
 * Every change of a level metric between two runs, marked `likely | unclear | unknown`:
 * - a share of answers with an n on both sides gets a p-value (the one that belongs to Newcombe's
 *   interval of the change, interval.ts) and is judged with the other changes of its document as
 *   one family (families.ts): `likely` when its adjusted value q is at most the family's α,
 *   `unclear` ("no clear change") otherwise; its interval is drawn at the level that agrees with
 *   that verdict;
 * - anything else (Life, ratios, counts, shares without a known n) is `unknown` — never `likely` —
 *   and takes no part in a family.
 * Fields that are themselves changes (`delta`, `deltaTimesCited`…) or the previous run's values
 * (`prev.*`) are left out: a change of a change is not something a reader can use.
 */

export type Significance = 'likely' | 'unclear' | 'unknown';

/** The false discovery rate a document's family is held to unless its config says otherwise. */
export const DEFAULT_ALPHA = 0.05;

export interface Judged {
  /** after − before on the scale people read: points for shares, the number itself otherwise. */
  change: number;
  /** The interval of `change` at `level`, in the same scale; null when there is none. */
  low: number | null;
  high: number | null;
  /** The confidence level of [low, high]: 0.95 for a change judged alone, higher in a family. */
  level: number | null;
  /** The p-value of the change on its own (Newcombe's interval inverted); null when unknown. */
  p: number | null;
  /** Its adjusted value in its family (Benjamini–Hochberg or Holm); likely when q ≤ α. */
  q: number | null;
  /** How many changes were judged together with this one (itself included). */
  familySize: number | null;
  nBefore: number | null;
  nAfter: number | null;
  /** Where n came from (`totalAll`, `totalAll ÷ 5 engines`, `timesCited`…). */
  nSource: string | null;
  significance: Significance;
}

/** A change measured but not yet judged: its family decides its verdict and its interval's level. */
export interface Measured {
  change: number;
  p: number | null;
  nBefore: number | null;
  nAfter: number | null;
  nSource: string | null;
  /** The two shares (0..1) and their n, to draw the interval at any level; null when unknown. */
  shares: { after: number; nAfter: number; before: number; nBefore: number } | null;
}

export interface MetricChange extends Judged {
  endpoint: string;
  field: string;
  dimension: string;
  dimension_id: string | null;
  dimension_label: string | null;
  unit: InsightRow['unit'];
  before: number;
  after: number;
}

/** A value on the 0..1 scale of a proportion, or undefined when its unit is not a share. */
export function proportion(value: number, unit: InsightRow['unit']): number | undefined {
  if (unit === 'percent') return value / 100;
  if (unit === 'fraction') return value;
  return undefined;
}

/** A number on the scale thresholds and changes are read in (points for shares). */
export function displayScale(value: number, unit: InsightRow['unit']): number {
  return unit === 'fraction' ? value * 100 : value;
}

/** One side of a comparison: the value and, for a share, the answers it was counted on. */
export interface Side {
  value: number;
  n?: number | undefined;
  nSource?: string | undefined;
}

/** Measures the change from `before` to `after` of a metric in `unit`: its p when it is a share with n. */
export function measureChange(
  before: Side,
  after: Side,
  unit: InsightRow['unit'],
  isShare: boolean,
): Measured {
  const change = displayScale(after.value, unit) - displayScale(before.value, unit);
  const measured: Measured = {
    change,
    p: null,
    nBefore: before.n ?? null,
    nAfter: after.n ?? null,
    nSource: after.nSource ?? before.nSource ?? null,
    shares: null,
  };
  const p1 = proportion(after.value, unit);
  const p2 = proportion(before.value, unit);
  if (!isShare || p1 === undefined || p2 === undefined || !after.n || !before.n) return measured;
  const shares = { after: p1, nAfter: after.n, before: p2, nBefore: before.n };
  return { ...measured, shares, p: newcombePValue(p1, after.n, p2, before.n) };
}

/** How a family is judged: its α (q for Benjamini–Hochberg, the family-wise rate for Holm). */
export interface FamilyOptions {
  alpha?: number;
  method?: FamilyMethod;
}

const UNKNOWN_VERDICT = { low: null, high: null, level: null, q: null, familySize: null } as const;

/**
 * Judges measured changes as one family: the ones with a p are its members (unknown ones stay
 * unknown, outside it). Same order out as in.
 */
export function judgeTogether(measured: readonly Measured[], options: FamilyOptions = {}): Judged[] {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const members = measured.flatMap((m, i) => (m.p === null ? [] : [i]));
  const verdicts = judgeFamily(
    members.map((i) => measured[i]!.p!),
    alpha,
    options.method ?? 'benjamini-hochberg',
  );
  const verdictAt = new Map(members.map((index, k) => [index, verdicts[k]!]));
  // Members share a level (Holm: all of them): its z is worked out once.
  const zOf = new Map<number, number>();
  return measured.map(({ shares, ...m }, i): Judged => {
    const verdict = verdictAt.get(i);
    if (!verdict || !shares) return { ...m, ...UNKNOWN_VERDICT, significance: 'unknown' };
    let z = zOf.get(verdict.intervalAlpha);
    if (z === undefined) {
      z = zOfTwoSided(verdict.intervalAlpha);
      zOf.set(verdict.intervalAlpha, z);
    }
    const interval = newcombeDifference(shares.after, shares.nAfter, shares.before, shares.nBefore, z);
    return {
      ...m,
      low: interval.low * 100,
      high: interval.high * 100,
      level: 1 - verdict.intervalAlpha,
      q: verdict.q,
      familySize: members.length,
      significance: verdict.likely ? 'likely' : 'unclear',
    };
  });
}

/**
 * The figures every document leads with — weighted and gross presence of the whole run — form its
 * primary family, holding `HEADLINE_SHARE` of the document's α (as Eppo reserves part of α for
 * primary metrics); every other judged figure shares the rest. A document without one of the two
 * families gives the other all of α. In a quiet world the chance of any likely change stays at most α
 * (a union of the two), while a true move of a headline figure is found far more often than among
 * all of a run's figures at once (test/insight/families-simulation.test.ts).
 */
export const HEADLINE_FIGURES: ReadonlySet<string> = new Set(['presence.weighted', 'presence.gross']);
export const HEADLINE_SHARE = 0.5;

/** Whether a row is one of the headline figures (the whole run's, not a breakdown). */
export const isHeadline = (row: Pick<InsightRow, 'endpoint' | 'field' | 'dimension'>): boolean =>
  row.dimension === '' && row.field === 'current' && HEADLINE_FIGURES.has(row.endpoint);

/**
 * Judges a document's changes: its headline figures as one family with their share of α, the rest as
 * another (`judgeTogether` each; unknown ones stay outside both). Same order out as in.
 */
export function judgeDocument<T extends Measured>(
  measured: readonly T[],
  headline: (change: T) => boolean,
  alpha = DEFAULT_ALPHA,
): Judged[] {
  const judged = (m: T) => m.p !== null;
  const first = measured.filter((m) => judged(m) && headline(m));
  const rest = measured.filter((m) => !(judged(m) && headline(m)));
  const share = rest.every((m) => !judged(m)) ? 1 : first.length === 0 ? 0 : HEADLINE_SHARE;
  const verdicts = new Map<T, Judged>();
  for (const [family, part] of [
    [first, alpha * share],
    [rest, alpha * (1 - share)],
  ] as const)
    judgeTogether(family, { alpha: part }).forEach((j, i) => verdicts.set(family[i]!, j));
  return measured.map((m) => verdicts.get(m)!);
}

/** A change judged on its own: a family of one at 5 %, its interval the plain 95 % one. */
export function judgeChange(before: Side, after: Side, unit: InsightRow['unit'], isShare: boolean): Judged {
  return judgeTogether([measureChange(before, after, unit, isShare)])[0]!;
}

const keyOf = (row: Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>) =>
  [row.endpoint, row.field, row.dimension, row.dimension_id ?? ''].join('\u0000');

/** A row's change, measured, with what it is a change of. */
export interface MeasuredChange extends Measured {
  endpoint: string;
  field: string;
  dimension: string;
  dimension_id: string | null;
  dimension_label: string | null;
  unit: InsightRow['unit'];
  before: number;
  after: number;
}

/**
 * Changes of every level metric present in both runs, in the order of `after`'s rows, judged as the
 * run's document (`judgeDocument`): what the export, the movers and `compare_runs` read.
 */
export function compareRuns(
  before: readonly InsightRow[],
  after: readonly InsightRow[],
  details: { before?: SetDetails; after?: SetDetails } = {},
  alpha = DEFAULT_ALPHA,
): MetricChange[] {
  return judgeRows(measureRuns(before, after, details), alpha);
}

/** The changes `compareRuns` judges, measured (no verdict yet). */
export function measureRuns(
  before: readonly InsightRow[],
  after: readonly InsightRow[],
  details: { before?: SetDetails; after?: SetDetails } = {},
): MeasuredChange[] {
  const samplesBefore: RunSamples = runSamples(before, details.before);
  const samplesAfter: RunSamples = runSamples(after, details.after);
  const earlier = new Map(before.map((row) => [keyOf(row), row]));
  const out: MeasuredChange[] = [];
  for (const row of after) {
    const old = earlier.get(keyOf(row));
    const change = old && measureRow(old, row, samplesBefore, samplesAfter);
    if (change) out.push(change);
  }
  return out;
}

/**
 * Judges the changes of rows as one document (`judgeDocument`), each figure once: a row that repeats another's figure
 * (`gPlus` beside `gravityPlus`, `totals.p1` beside the overall `p1`; sample-sizes.ts `figureOf`)
 * takes the judgement of the figure's first row instead of counting in the family again.
 */
export function judgeRows(measured: readonly MeasuredChange[], alpha = DEFAULT_ALPHA): MetricChange[] {
  // Each figure's row: its canonical row when present, else the first one seen.
  const chosen = new Map<string, number>();
  for (const [i, change] of measured.entries()) {
    if (change.p === null) continue;
    const figure = figureOf(change);
    const at = chosen.get(figure);
    if (at === undefined || (keyOf(change) === figure && keyOf(measured[at]!) !== figure))
      chosen.set(figure, i);
  }
  const members = measured.flatMap((change, i) =>
    change.p === null || chosen.get(figureOf(change)) === i ? [i] : [],
  );
  const verdicts = judgeDocument(
    members.map((i) => measured[i]!),
    isHeadline,
    alpha,
  );
  const judged = new Map(members.map((index, k) => [index, verdicts[k]!]));
  return measured.map(({ shares: _, ...change }, i): MetricChange => {
    const own = judged.get(i);
    if (own) return { ...change, ...own };
    // A repeat of a figure judged under another row: that row's verdict beside this row's numbers.
    const { low, high, level, p, q, familySize, significance } = judged.get(chosen.get(figureOf(change))!)!;
    return { ...change, low, high, level, p, q, familySize, significance };
  });
}

/**
 * The change of one row between two runs of its set, given each run's sample sizes, measured;
 * undefined for a row `compareRuns` leaves out (not a level, a history point, units that cannot be
 * put on one scale).
 */
export function measureRow(
  old: InsightRow,
  row: InsightRow,
  samplesBefore: RunSamples,
  samplesAfter: RunSamples,
): MeasuredChange | undefined {
  if (row.dimension === 'measurement' || !isLevelField(row.field)) return undefined;
  const sampleAfter = samplesAfter.of(row);
  const sampleBefore = samplesBefore.of(old);
  // A `mix` whole may be sent as fractions one run and as percent the next: compare on one scale.
  const oldValue = sameScale(old, row.unit);
  if (oldValue === undefined) return undefined;
  const measured = measureChange(
    { value: oldValue, n: sampleBefore?.n, nSource: sampleBefore?.source },
    { value: row.value, n: sampleAfter?.n, nSource: sampleAfter?.source },
    row.unit,
    sampleAfter !== undefined,
  );
  return {
    endpoint: row.endpoint,
    field: row.field,
    dimension: row.dimension,
    dimension_id: row.dimension_id,
    dimension_label: row.dimension_label,
    unit: row.unit,
    before: oldValue,
    after: row.value,
    ...measured,
  };
}

function sameScale(row: InsightRow, unit: InsightRow['unit']): number | undefined {
  if (row.unit === unit) return row.value;
  if (row.unit === 'fraction' && unit === 'percent') return row.value * 100;
  if (row.unit === 'percent' && unit === 'fraction') return row.value / 100;
  return undefined;
}
