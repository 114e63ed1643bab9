import type { Judged } from '../insight/changes.js';

/**
 * The interval and sample sizes of a change as alert text: "(95 % interval −17.4 to −6.6 pts;
 * n = 1,195 → 600 answers)". Empty when the change has no interval.
 */
export function noiseText(judged: Pick<Judged, 'low' | 'high' | 'nBefore' | 'nAfter'>): string {
  if (judged.low === null || judged.high === null) return '';
  const points = (v: number) => `${v < 0 ? '−' : v > 0 ? '+' : ''}${Math.abs(v).toFixed(1)}`;
  const count = (v: number | null) => (v === null ? '?' : v.toLocaleString('en-US'));
  return `(95 % interval ${points(judged.low)} to ${points(judged.high)} pts; n = ${count(judged.nBefore)} → ${count(judged.nAfter)} answers)`;
}
