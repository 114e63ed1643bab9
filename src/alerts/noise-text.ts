import type { Judged } from '../insight/changes.js';

/**
 * A judged change as alert text: the verdict, its adjusted q among the figures the rule watches in
 * the run (its p when it is the only one), the interval at the level that agrees with the verdict
 * (uneven, so written as it is), and the answers on each side — "(likely change, q = 0.004 among 5
 * figures; interval −17.4 to −6.6 pts at 99.5 %; n = 1,197 → 600 answers)". Empty when the change
 * has no interval.
 */
export function noiseText(
  judged: Pick<Judged, 'low' | 'high' | 'level' | 'q' | 'familySize' | 'significance' | 'nBefore' | 'nAfter'>,
): string {
  if (judged.low === null || judged.high === null) return '';
  const points = (v: number) => {
    const text = Math.abs(v).toFixed(1);
    return `${Number(text) === 0 ? '' : v < 0 ? '−' : '+'}${text}`;
  };
  const count = (v: number | null) => (v === null ? '?' : v.toLocaleString('en-US'));
  const verdict = judged.significance === 'likely' ? 'likely change' : 'no clear change';
  const number = (v: number) => (v < 0.001 ? v.toExponential(1) : v.toFixed(3));
  // Alone, q is p; among several figures it is the adjusted value, and says among how many.
  const q =
    judged.q === null
      ? ''
      : judged.familySize === 1
        ? `, p = ${number(judged.q)}`
        : `, q = ${number(judged.q)} among ${judged.familySize ?? '?'} figures`;
  const level = judged.level === null ? '' : ` at ${Number((judged.level * 100).toFixed(2))} %`;
  return `(${verdict}${q}; interval ${points(judged.low)} to ${points(judged.high)} pts${level}; n = ${count(judged.nBefore)} → ${count(judged.nAfter)} answers)`;
}
