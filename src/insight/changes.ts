import { type Interval, newcombeDifference } from './interval.js';
import {
  type InsightRow,
  isLevelField,
  type RunSamples,
  runSamples,
  type SetDetails,
} from './sample-sizes.js';

/**
 * Every change of a level metric between two runs, marked `real | noise | unknown`:
 * - a share of answers with an n on both sides gets Newcombe's 95 % interval of the change (in
 *   points); `real` when the interval excludes zero, `noise` when it contains it;
 * - anything else (Life, ratios, counts, shares without a known n) is `unknown` — never `real`.
 * Fields that are themselves changes (`delta`, `deltaTimesCited`…) or the previous run's values
 * (`prev.*`) are left out: a change of a change is not something a reader can use.
 */

export type Significance = 'real' | 'noise' | 'unknown';

export interface Judged {
  /** after − before on the scale people read: points for shares, the number itself otherwise. */
  change: number;
  /** The 95 % interval of `change` in the same scale; null when there is none. */
  low: number | null;
  high: number | null;
  nBefore: number | null;
  nAfter: number | null;
  /** Where n came from (`totalAll`, `timesCited`, `totalAll ÷ 5 engines`…). */
  nSource: string | null;
  significance: Significance;
}

export interface MetricChange extends Judged {
  endpoint: string;
  field: string;
  dimension: string;
  dimension_id: string | null;
  dimension_label: string | null;
  unit: InsightRow['unit'];
  before: number;
  after: number;
}

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

/** Judges the change from `before` to `after` of a metric in `unit` (see the file's header). */
export function judgeChange(before: Side, after: Side, unit: InsightRow['unit'], isShare: boolean): Judged {
  const change = displayScale(after.value, unit) - displayScale(before.value, unit);
  const unknown: Judged = {
    change,
    low: null,
    high: null,
    nBefore: before.n ?? null,
    nAfter: after.n ?? null,
    nSource: after.nSource ?? before.nSource ?? null,
    significance: 'unknown',
  };
  const p1 = proportion(after.value, unit);
  const p2 = proportion(before.value, unit);
  if (!isShare || p1 === undefined || p2 === undefined || !after.n || !before.n) return unknown;
  const interval: Interval = newcombeDifference(p1, after.n, p2, before.n);
  const low = interval.low * 100;
  const high = interval.high * 100;
  return { ...unknown, low, high, significance: low > 0 || high < 0 ? 'real' : 'noise' };
}

const keyOf = (row: InsightRow) =>
  [row.endpoint, row.field, row.dimension, row.dimension_id ?? ''].join('\u0000');

/** Changes of every level metric present in both runs, in the order of `after`'s rows. */
export function compareRuns(
  before: readonly InsightRow[],
  after: readonly InsightRow[],
  details: { before?: SetDetails; after?: SetDetails } = {},
): MetricChange[] {
  const samplesBefore: RunSamples = runSamples(before, details.before);
  const samplesAfter: RunSamples = runSamples(after, details.after);
  const earlier = new Map(before.map((row) => [keyOf(row), row]));
  const out: MetricChange[] = [];
  for (const row of after) {
    const old = earlier.get(keyOf(row));
    const change = old && changeOf(old, row, samplesBefore, samplesAfter);
    if (change) out.push(change);
  }
  return out;
}

/**
 * The change of one row between two runs of its set, given each run's sample sizes; undefined for a
 * row `compareRuns` leaves out (not a level, a history point, units that cannot be put on one scale).
 */
export function changeOf(
  old: InsightRow,
  row: InsightRow,
  samplesBefore: RunSamples,
  samplesAfter: RunSamples,
): MetricChange | undefined {
  if (row.dimension === 'measurement' || !isLevelField(row.field)) return undefined;
  const sampleAfter = samplesAfter.of(row);
  const sampleBefore = samplesBefore.of(old);
  // A `mix` whole may be sent as fractions one run and as percent the next: compare on one scale.
  const oldValue = sameScale(old, row.unit);
  if (oldValue === undefined) return undefined;
  const judged = judgeChange(
    { value: oldValue, n: sampleBefore?.n, nSource: sampleBefore?.source },
    { value: row.value, n: sampleAfter?.n, nSource: sampleAfter?.source },
    row.unit,
    sampleAfter !== undefined,
  );
  return {
    endpoint: row.endpoint,
    field: row.field,
    dimension: row.dimension,
    dimension_id: row.dimension_id,
    dimension_label: row.dimension_label,
    unit: row.unit,
    before: oldValue,
    after: row.value,
    ...judged,
  };
}

function sameScale(row: InsightRow, unit: InsightRow['unit']): number | undefined {
  if (row.unit === unit) return row.value;
  if (row.unit === 'fraction' && unit === 'percent') return row.value * 100;
  if (row.unit === 'percent' && unit === 'fraction') return row.value / 100;
  return undefined;
}
