/**
 * Many changes judged at once. A document that judges 12 changes at the 5 % level each calls about
 * one of them a change in a world where nothing moved; judged as one family, with the error rate
 * controlled across the family, it says "likely change" of a figure only when that holds up beside
 * the others. Two procedures, both small pure functions over p-values:
 *
 * - Benjamini–Hochberg (1995), for documents: controls the false discovery rate, the expected share
 *   of "likely" verdicts that are wrong; weighted (Genovese, Roeder & Wasserman 2006) so a report's
 *   headline figures can hold a reserved part of the budget;
 * - Holm (1979), for alert rules: controls the chance of any false firing among the figures a rule
 *   watches (its family-wise error rate), which is what a rule that wakes someone up should promise.
 *
 * Each gives every member an adjusted value (q; "likely" when q ≤ α) and the level at which the
 * member's interval is drawn, chosen so the interval excludes zero exactly when the verdict is
 * "likely" (see `levelOf` of each).
 */

export type FamilyMethod = 'benjamini-hochberg' | 'holm';

export interface FamilyVerdict {
  /** The adjusted value: the smallest α of the family at which this member would be "likely". */
  q: number;
  likely: boolean;
  /** The two-sided error rate of the member's interval: drawn at level 1 − `intervalAlpha`. */
  intervalAlpha: number;
}

/**
 * Benjamini–Hochberg adjusted values of `p` (any order; same order out), with optional weights
 * (mean 1 over the family; a member of weight w is judged on p / w). q_(k) = min over j ≥ k of
 * m·p_(j)/(j·w_(j)), capped at 1, for the members sorted by p / w.
 */
export function benjaminiHochberg(p: readonly number[], weights?: readonly number[]): number[] {
  const m = p.length;
  const scaled = p.map((value, i) => value / (weights?.[i] ?? 1));
  const order = scaled.map((_, i) => i).sort((a, b) => scaled[a]! - scaled[b]!);
  const q = new Array<number>(m);
  let smallest = 1;
  for (let rank = m; rank >= 1; rank--) {
    const i = order[rank - 1]!;
    // m / rank first: it is exactly 1 for the largest p, so rounding never leaves q below p / w.
    smallest = Math.min(smallest, scaled[i]! * (m / rank));
    q[i] = smallest;
  }
  return q;
}

/** Holm's adjusted values of `p` (same order out): q_(k) = max over j ≤ k of (m − j + 1)·p_(j), capped at 1. */
export function holm(p: readonly number[]): number[] {
  const m = p.length;
  const order = p.map((_, i) => i).sort((a, b) => p[a]! - p[b]!);
  const q = new Array<number>(m);
  let largest = 0;
  for (let rank = 1; rank <= m; rank++) {
    const i = order[rank - 1]!;
    largest = Math.max(largest, Math.min(1, (m - rank + 1) * p[i]!));
    q[i] = largest;
  }
  return q;
}

/**
 * Judges a family: each member's q, its verdict at `alpha`, and the level of its interval.
 *
 * The interval must never contradict the verdict. With R members likely out of m:
 * - Benjamini–Hochberg: member i is drawn at 1 − wᵢ·max(R, 1)·α/m, Benjamini & Yekutieli's (2005)
 *   false-coverage-rate adjusted interval (weighted as the test is). BH's step-up rule makes the
 *   likely members exactly those with p/w ≤ R·α/m, so these intervals exclude zero for the likely
 *   members and contain it for the rest.
 * - Holm: every member is drawn at 1 − α/max(m − R, 1), the level Holm's last step tests the members
 *   it did not call likely at; each likely member passed a stricter step (p ≤ α/(m − k + 1) ≤
 *   α/(m − R + 1)), so its interval excludes zero, and every other has p above it.
 */
export function judgeFamily(
  p: readonly number[],
  alpha: number,
  method: FamilyMethod,
  weights?: readonly number[],
): FamilyVerdict[] {
  const m = p.length;
  if (m === 0) return [];
  if (method === 'holm') {
    const q = holm(p);
    const likely = q.map((value) => value <= alpha);
    const found = likely.filter(Boolean).length;
    const intervalAlpha = alpha / Math.max(m - found, 1);
    return q.map((value, i) => ({ q: value, likely: likely[i]!, intervalAlpha }));
  }
  const q = benjaminiHochberg(p, weights);
  const likely = q.map((value) => value <= alpha);
  const found = Math.max(likely.filter(Boolean).length, 1);
  return q.map((value, i) => ({
    q: value,
    likely: likely[i]!,
    intervalAlpha: Math.min(1, ((weights?.[i] ?? 1) * found * alpha) / m),
  }));
}
