import { type FamilyMethod, judgeFamily } from './families.js';
import { newcombeDifference, newcombePValue } from './interval.js';
import { zOfTwoSided } from './normal.js';
import type { InsightRow } from './sample-sizes.js';

/**
 * Every change of a level metric between two runs, marked `likely | unclear | unknown`:
 * - a share of answers with an n on both sides gets a p-value (the one that belongs to Newcombe's
 *   interval of the change, interval.ts) and is judged with the other changes of its document as
 *   one family (families.ts): `likely` when its adjusted value q is at most the family's α,
 *   `unclear` ("no clear change") otherwise; its interval is drawn at the level that agrees with
 *   that verdict;
 * - anything else (Life, ratios, counts, shares without a known n) is `unknown` — never `likely` —
 *   and takes no part in a family.
 * The changes of two runs' metric rows, as documents judge them, are in row-changes.ts.
 */

export type Significance = 'likely' | 'unclear' | 'unknown' | 'invalid';

/**
 * Why a change was not judged although it might have been: `invalid-value` (either run's value is
 * outside what its unit allows, valid-values.ts), `copies-disagree` (the API sends the figure under
 * two names and the copies differ, row-changes.ts). Null otherwise.
 */
export type ChangeNote = 'invalid-value' | 'copies-disagree';

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
  note: ChangeNote | null;
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
  /** Set when the change must not be judged whatever its p (an invalid value, disagreeing copies). */
  note?: ChangeNote | null;
}

/** What a change of a metric row is a change of: the row, and its value on each side. */
export interface RowChange {
  endpoint: string;
  field: string;
  dimension: string;
  dimension_id: string | null;
  dimension_label: string | null;
  unit: InsightRow['unit'];
  before: number;
  after: number;
}

export interface MetricChange extends Judged, RowChange {}

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
  const members = measured.flatMap((m, i) => (m.p === null || m.note ? [] : [i]));
  const verdicts = judgeFamily(
    members.map((i) => measured[i]!.p!),
    alpha,
    options.method ?? 'benjamini-hochberg',
  );
  const verdictAt = new Map(members.map((index, k) => [index, verdicts[k]!]));
  // Members share a level (Holm: all of them): its z is worked out once.
  const zOf = new Map<number, number>();
  return measured.map(({ shares, note = null, ...m }, i): Judged => {
    const verdict = verdictAt.get(i);
    if (!verdict || !shares)
      return {
        ...m,
        ...UNKNOWN_VERDICT,
        note,
        significance: note === 'invalid-value' ? 'invalid' : 'unknown',
      };
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
      note: null,
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
  const judged = (m: T) => m.p !== null && !m.note;
  const first = measured.filter((m) => judged(m) && headline(m));
  const rest = measured.filter((m) => !(judged(m) && headline(m)));
  const share = rest.every((m) => !judged(m)) ? 1 : first.length === 0 ? 0 : HEADLINE_SHARE;
  const verdicts = new Map<T, Judged>();
  for (const [family, part] of [
    [first, alpha * share],
    [rest, alpha * (1 - share)],
  ] as const)
    for (const [i, judged] of judgeTogether(family, { alpha: part }).entries())
      verdicts.set(family[i]!, judged);
  return measured.map((m) => verdicts.get(m)!);
}

/** A change judged on its own: a family of one at 5 %, its interval the plain 95 % one. */
export function judgeChange(before: Side, after: Side, unit: InsightRow['unit'], isShare: boolean): Judged {
  return judgeTogether([measureChange(before, after, unit, isShare)])[0]!;
}
