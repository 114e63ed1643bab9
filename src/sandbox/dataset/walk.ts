import { clamp, round, signedUnit, unit } from '../rng.js';

/**
 * How the demo's rates drift (answers/rates.ts): a bounded random walk starts somewhere in [lo, hi]
 * and moves by a small drift plus noise each run. That gives history series that trend and wobble
 * like real data, and a run's value depends only on its address and index, never on which requests
 * came first.
 */
export interface WalkSpec {
  lo: number;
  hi: number;
  /** Mean change per run (the trend). */
  drift: number;
  /** Largest random change per run. */
  step: number;
  min: number;
  max: number;
  decimals: number;
}

/**
 * Values already walked, per address and spec. A value never changes once computed (it depends only
 * on its address), so the cache is shared by every sandbox in the process and only ever grows by the
 * runs the sandboxes publish; it turns the O(run index) walk into a lookup for history series.
 */
const walked = new Map<string, number[]>();

export function walk(address: ReadonlyArray<string | number>, index: number, spec: WalkSpec): number {
  const key = `${address.join('\u001f')}\u001e${spec.lo},${spec.hi},${spec.drift},${spec.step},${spec.min},${spec.max}`;
  let raw = walked.get(key);
  if (!raw) {
    raw = [spec.lo + (spec.hi - spec.lo) * unit(...address, 'base')];
    walked.set(key, raw);
  }
  // A per-address drift sign keeps some series falling while others rise (hashed only when walking on).
  const direction = raw.length <= index && unit(...address, 'dir') < 0.3 ? -1 : 1;
  for (let i = raw.length; i <= index; i++) {
    const previous = raw[i - 1] ?? 0;
    raw.push(
      clamp(previous + direction * spec.drift + spec.step * signedUnit(...address, i), spec.min, spec.max),
    );
  }
  return round(raw[index] ?? 0, spec.decimals);
}
