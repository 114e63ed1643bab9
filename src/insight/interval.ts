/**
 * The arithmetic of the noise model: a 95 % interval for the difference of two proportions measured
 * on independent samples (two runs of a query set). Method 10 of Newcombe (1998), "Interval
 * estimation for the difference between independent proportions: comparison of eleven methods",
 * Statistics in Medicine 17:873–890 — the hybrid score interval built from the two Wilson score
 * intervals. It keeps close to its nominal coverage at the sample sizes and rates reportd sees (a few
 * hundred answers, shares between 5 % and 60 %) and never leaves [−1, 1], unlike the Wald interval.
 * Pure functions; the formulas are written out in docs/analysing-data.md, "How noise is judged".
 */

import { twoSidedTail } from './normal.js';

/** z for a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/**
 * Wilson's score interval for a proportion `p` observed on `n` trials:
 * (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n).
 */
export function wilson(p: number, n: number, z = Z95): Interval {
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const denominator = 1 + z2 / n;
  return {
    low: Math.max(0, (centre - spread) / denominator),
    high: Math.min(1, (centre + spread) / denominator),
  };
}

/**
 * Newcombe's hybrid score interval (method 10) for `after − before`, proportions in 0..1 with their
 * sample sizes: with Wilson intervals (l₁, u₁) for `after` and (l₂, u₂) for `before`, the change
 * D = p₁ − p₂ has the interval (D − √((p₁−l₁)² + (u₂−p₂)²), D + √((u₁−p₁)² + (p₂−l₂)²)).
 * `z` sets the level (1.96 for 95 %; a family of changes asks for wider ones, see families.ts).
 */
export function newcombeDifference(
  after: number,
  nAfter: number,
  before: number,
  nBefore: number,
  z = Z95,
): Interval {
  const a = wilson(clamp01(after), nAfter, z);
  const b = wilson(clamp01(before), nBefore, z);
  const p1 = clamp01(after);
  const p2 = clamp01(before);
  const d = p1 - p2;
  return {
    low: d - Math.sqrt((p1 - a.low) ** 2 + (b.high - p2) ** 2),
    high: d + Math.sqrt((a.high - p1) ** 2 + (p2 - b.low) ** 2),
  };
}

const clamp01 = (p: number) => Math.min(1, Math.max(0, p));

/**
 * The p-value that belongs to Newcombe's interval: the smallest α at which the (1 − α) interval of
 * `after − before` touches zero. So p < α exactly when the (1 − α) interval excludes zero, and a
 * verdict read from p never contradicts an interval drawn at the same level. Found by a root search
 * on z: each end of the interval moves away from D as z grows (the Wilson intervals only widen), from
 * D itself at z = 0 to beyond zero as z → ∞. 1 when the shares are equal.
 */
export function newcombePValue(after: number, nAfter: number, before: number, nBefore: number): number {
  const d = clamp01(after) - clamp01(before);
  if (d === 0) return 1;
  // The end of the interval on zero's side: the low end of a rise, the high end of a fall.
  const gap = (z: number) => {
    const interval = newcombeDifference(after, nAfter, before, nBefore, z);
    return d > 0 ? interval.low : -interval.high;
  };
  // A bracket [inside, outside] around the root, then regula falsi with the Illinois step (the
  // gap is smooth in z): a handful of evaluations where bisection takes fifty.
  let inside = 0; // gap(inside) > 0: the interval still excludes zero
  let outside = 4;
  while (gap(outside) > 0) {
    inside = outside;
    outside *= 2;
    // Beyond z = 40 the tail is below 1e-300: zero is as far out as a double can say.
    if (outside > 40) return 0;
  }
  let gapIn = gap(inside);
  let gapOut = gap(outside);
  let side = 0;
  let z = inside;
  for (let i = 0; i < 100; i++) {
    const next = outside - (gapOut * (outside - inside)) / (gapOut - gapIn);
    const g = gap(next);
    const converged = Math.abs(next - z) < 1e-12 || g === 0;
    z = next;
    if (converged) break;
    if (g > 0) {
      inside = z;
      gapIn = g;
      if (side === 1) gapOut /= 2;
      side = 1;
    } else {
      outside = z;
      gapOut = g;
      if (side === -1) gapIn /= 2;
      side = -1;
    }
  }
  return twoSidedTail(z);
}
