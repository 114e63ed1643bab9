/**
 * The arithmetic of the noise model: a 95 % interval for the difference of two proportions measured
 * on independent samples (two runs of a query set). Method 10 of Newcombe (1998), "Interval
 * estimation for the difference between independent proportions: comparison of eleven methods",
 * Statistics in Medicine 17:873–890 — the hybrid score interval built from the two Wilson score
 * intervals. It keeps close to its nominal coverage at the sample sizes and rates reportd sees (a few
 * hundred answers, shares between 5 % and 60 %) and never leaves [−1, 1], unlike the Wald interval.
 * Pure functions; the formulas are written out in the README's "How noise is judged" section.
 */

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
 */
export function newcombeDifference(after: number, nAfter: number, before: number, nBefore: number): Interval {
  const a = wilson(clamp01(after), nAfter);
  const b = wilson(clamp01(before), nBefore);
  const p1 = clamp01(after);
  const p2 = clamp01(before);
  const d = p1 - p2;
  return {
    low: d - Math.sqrt((p1 - a.low) ** 2 + (b.high - p2) ** 2),
    high: d + Math.sqrt((a.high - p1) ** 2 + (p2 - b.low) ** 2),
  };
}

const clamp01 = (p: number) => Math.min(1, Math.max(0, p));
