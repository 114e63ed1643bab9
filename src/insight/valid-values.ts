import type { MetricUnit } from '../api/field-units.js';
import { isLevelField } from './sample-sizes.js';

/**
 * What a number can be, by its unit: a share is 0–100 % (0–1 as a fraction), a count or a ratio is
 * never negative, a score is on 0–100, and nothing is infinite. A level the API sends outside that is
 * kept in the store exactly as sent, flagged `invalid` in the metric rows, shown as "—" with a note
 * and never judged or alerted on: a presence of 150 % or −20 % is a fault of the service, and a
 * change measured from it would be judged "likely" with an interval that means nothing.
 * Changes (`delta`…) and previous values are not levels and are not checked here: a change of a
 * share may well be negative.
 */

/** How far past a bound a value may be before it is called invalid: the API rounds to 2–4 decimals. */
const SLACK = 1e-6;

const RANGES: Readonly<Partial<Record<MetricUnit, readonly [number, number]>>> = {
  percent: [0, 100],
  fraction: [0, 1],
  score: [0, 100],
  count: [0, Number.POSITIVE_INFINITY],
  ratio: [0, Number.POSITIVE_INFINITY],
};

/** Whether `value` in `unit` is a number the unit allows (any finite number for `unknown`). */
export function validValue(value: number, unit: MetricUnit): boolean {
  if (!Number.isFinite(value)) return false;
  const range = RANGES[unit];
  if (!range) return true;
  const [low, high] = range;
  return value >= low - SLACK * Math.max(1, Math.abs(low)) && value <= high + SLACK * Math.max(1, high);
}

/** Whether a metric row holds a level outside what its unit allows (a change field is never invalid). */
export function isInvalidRow(row: { field: string; value: number; unit: MetricUnit }): boolean {
  return isLevelField(row.field) && !validValue(row.value, row.unit);
}
