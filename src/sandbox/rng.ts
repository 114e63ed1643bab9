/**
 * Deterministic randomness for the sandbox. Every value is derived from a hash of its "address"
 * (set, metric, run index…) rather than drawn from a shared stream, so a value does not depend on
 * which requests came before it: two sandboxes, or two requests in any order, see the same numbers.
 */

/** FNV-1a over the parts' text: a stable 32-bit seed for any tuple of ids and names. */
export function hashSeed(...parts: ReadonlyArray<string | number>): number {
  let h = 0x811c9dc5;
  const text = parts.join('\u001f');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, good enough for synthetic data; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One uniform float in [0, 1) for an address. */
export function unit(...parts: ReadonlyArray<string | number>): number {
  return mulberry32(hashSeed(...parts))();
}

/** One uniform float in [-1, 1) for an address. */
export function signedUnit(...parts: ReadonlyArray<string | number>): number {
  return unit(...parts) * 2 - 1;
}

export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/**
 * Splits `total` into parts proportional to `weights`, rounded to `decimals`, so that the parts add up
 * exactly (shares sum to 1, percents to 100): each part is its exact value rounded down or up, the
 * units left over going to the largest remainders (Hamilton's method). No weight at all gives zeros.
 */
export function apportion(weights: readonly number[], total: number, decimals: number): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (!(sum > 0)) return weights.map(() => 0);
  const unitsTotal = Math.round(total * 10 ** decimals);
  const exact = weights.map((w) => (w / sum) * unitsTotal);
  const units = exact.map((x) => Math.floor(x + 1e-9));
  let left = unitsTotal - units.reduce((a, b) => a + b, 0);
  const byRemainder = exact
    .map((_, k) => k)
    .sort((a, b) => exact[b]! - units[b]! - (exact[a]! - units[a]!) || a - b);
  for (const k of byRemainder) {
    if (left <= 0) break;
    units[k]!++;
    left--;
  }
  return units.map((u) => round(u / 10 ** decimals, decimals));
}
