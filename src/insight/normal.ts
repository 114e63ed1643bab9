/**
 * The standard normal distribution, as far as the noise model needs it: the two-sided tail beyond a z
 * (to turn an interval's z into the error rate it stands for) and the z of a two-sided error rate (to
 * draw an interval at the level a family of changes asks for). Pure functions, no dependency.
 */

/**
 * erfc(x) for x ≥ 0 by the Chebyshev fit of Numerical Recipes (3rd ed., §6.2.2, `Erf::erfccheb`):
 * relative error below 1.2e-16, so tails as small as 1e-300 keep their digits (1 − Φ would not).
 */
const ERFC_COEFFICIENTS = [
  -1.3026537197817094, 0.6419697923564902, 1.9476473204185836e-2, -9.561514786808631e-3, -9.46595344482036e-4,
  3.66839497852761e-4, 4.2523324806907e-5, -2.0278578112534e-5, -1.624290004647e-6, 1.30365583558e-6,
  1.5626441722e-8, -8.5238095915e-8, 6.529054439e-9, 5.059343495e-9, -9.91364156e-10, -2.27365122e-10,
  9.6467911e-11, 2.394038e-12, -6.886027e-12, 8.94487e-13, 3.13092e-13, -1.12708e-13, 3.81e-16, 7.106e-15,
  -1.523e-15, -9.4e-17, 1.21e-16, -2.8e-17,
];

function erfcPositive(x: number): number {
  const t = 2 / (2 + x);
  const ty = 4 * t - 2;
  let d = 0;
  let dd = 0;
  for (let j = ERFC_COEFFICIENTS.length - 1; j > 0; j--) {
    const previous = d;
    d = ty * d - dd + ERFC_COEFFICIENTS[j]!;
    dd = previous;
  }
  return t * Math.exp(-x * x + 0.5 * (ERFC_COEFFICIENTS[0]! + ty * d) - dd);
}

/** P(|Z| ≥ z) for a standard normal Z: the two-sided error rate of an interval drawn with this z. */
export function twoSidedTail(z: number): number {
  return erfcPositive(Math.abs(z) / Math.SQRT2);
}

/**
 * The z with P(|Z| ≥ z) = `alpha` (0 < alpha < 1): 1.959964 for 0.05. Acklam's rational start
 * (relative error 1.2e-9) polished by two Newton steps on `twoSidedTail`.
 */
export function zOfTwoSided(alpha: number): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must lie in (0, 1), got ${alpha}`);
  let z = -lowerQuantile(alpha / 2);
  for (let i = 0; i < 2; i++) {
    const density = Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
    // d/dz of P(|Z| ≥ z) is −2φ(z).
    z += (twoSidedTail(z) - alpha) / (2 * density);
  }
  return z;
}

const A = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
  2.506628277459239,
];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];

/** Φ⁻¹(p) for 0 < p ≤ 0.5 (Acklam's algorithm). */
function lowerQuantile(p: number): number {
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) /
      ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1)
    );
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) /
    (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1)
  );
}
