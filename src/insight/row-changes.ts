import {
  DEFAULT_ALPHA,
  displayScale,
  isHeadline,
  judgeDocument,
  type Measured,
  type MetricChange,
  measureChange,
  type RowChange,
} from './changes.js';
import {
  figureOf,
  type InsightRow,
  isLevelField,
  type RunSamples,
  runSamples,
  type SetDetails,
} from './sample-sizes.js';
import { isInvalidRow } from './valid-values.js';

/**
 * The changes of two runs' metric rows, judged as one document: every level metric present in both
 * runs, each figure once, the run's headline figures as its primary family (changes.ts). What the
 * export, the movers and the MCP tools read. Fields that are themselves changes (`delta`,
 * `deltaTimesCited`…) or the previous run's values (`prev.*`) are left out: a change of a change is
 * not something a reader can use.
 */

const keyOf = (row: Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>) =>
  [row.endpoint, row.field, row.dimension, row.dimension_id ?? ''].join('\u0000');

/** A row's change, measured, with what it is a change of. */
export interface MeasuredChange extends Measured, RowChange {}

/**
 * Changes of every level metric present in both runs, in the order of `after`'s rows, judged as the
 * run's document (`judgeDocument`): what the export, the movers and `compare_runs` read.
 */
export function compareRuns(
  before: readonly InsightRow[],
  after: readonly InsightRow[],
  details: { before?: SetDetails; after?: SetDetails } = {},
  alpha = DEFAULT_ALPHA,
): MetricChange[] {
  return judgeRows(measureRuns(before, after, details), alpha);
}

/** The changes `compareRuns` judges, measured (no verdict yet). */
export function measureRuns(
  before: readonly InsightRow[],
  after: readonly InsightRow[],
  details: { before?: SetDetails; after?: SetDetails } = {},
): MeasuredChange[] {
  const samplesBefore: RunSamples = runSamples(before, details.before);
  const samplesAfter: RunSamples = runSamples(after, details.after);
  const earlier = new Map(before.map((row) => [keyOf(row), row]));
  const out: MeasuredChange[] = [];
  for (const row of after) {
    const old = earlier.get(keyOf(row));
    const change = old && measureRow(old, row, samplesBefore, samplesAfter);
    if (change) out.push(change);
  }
  return out;
}

/**
 * Judges the changes of rows as one document (`judgeDocument`), each figure once: a row that repeats
 * another's figure (`gPlus` beside `gravityPlus`, `totals.p1` beside the overall `p1`; sample-sizes.ts
 * `figureOf`) takes the judgement of the figure's first row instead of counting in the family again —
 * when the copies agree. Copies that disagree beyond the API's rounding are none of them judged
 * (`copies-disagree`): which one is the figure is not something reportd can know.
 */
export function judgeRows(measured: readonly MeasuredChange[], alpha = DEFAULT_ALPHA): MetricChange[] {
  const checked = markDisagreements(measured);
  // Each figure's row: its canonical row when present, else the first one seen.
  const chosen = new Map<string, number>();
  for (const [i, change] of checked.entries()) {
    if (!judgeable(change)) continue;
    const figure = figureOf(change);
    const at = chosen.get(figure);
    if (at === undefined || (keyOf(change) === figure && keyOf(checked[at]!) !== figure))
      chosen.set(figure, i);
  }
  const members = checked.flatMap((change, i) =>
    !judgeable(change) || chosen.get(figureOf(change)) === i ? [i] : [],
  );
  const verdicts = judgeDocument(
    members.map((i) => checked[i]!),
    isHeadline,
    alpha,
  );
  const judged = new Map(members.map((index, k) => [index, verdicts[k]!]));
  return checked.map(({ shares: _, note: __, ...change }, i): MetricChange => {
    const own = judged.get(i);
    if (own) return { ...change, ...own };
    // A repeat of a figure judged under another row: that row's verdict beside this row's numbers.
    const { low, high, level, p, q, familySize, significance, note } = judged.get(
      chosen.get(figureOf(change))!,
    )!;
    return { ...change, low, high, level, p, q, familySize, significance, note };
  });
}

const judgeable = (change: MeasuredChange) => change.p !== null && !change.note;

/** How far two copies of a figure may differ (in points, or the number) and still be one figure: the API's rounding. */
const COPY_TOLERANCE = 0.051;

/** The changes, with every copy of a figure whose copies disagree marked `copies-disagree`. */
function markDisagreements(measured: readonly MeasuredChange[]): MeasuredChange[] {
  const first = new Map<string, MeasuredChange>();
  const disagree = new Set<string>();
  for (const change of measured) {
    if (!judgeable(change)) continue;
    const figure = figureOf(change);
    const seen = first.get(figure);
    if (!seen) first.set(figure, change);
    else if (!sameFigure(seen, change)) disagree.add(figure);
  }
  if (disagree.size === 0) return [...measured];
  return measured.map((change) =>
    judgeable(change) && disagree.has(figureOf(change)) ? { ...change, note: 'copies-disagree' } : change,
  );
}

function sameFigure(a: MeasuredChange, b: MeasuredChange): boolean {
  const close = (x: number, y: number) => Math.abs(x - y) <= COPY_TOLERANCE;
  return (
    close(displayScale(a.after, a.unit), displayScale(b.after, b.unit)) &&
    close(displayScale(a.before, a.unit), displayScale(b.before, b.unit))
  );
}

/**
 * The change of one row between two runs of its set, given each run's sample sizes, measured;
 * undefined for a row `compareRuns` leaves out (not a level, a history point, units that cannot be
 * put on one scale).
 */
export function measureRow(
  old: InsightRow,
  row: InsightRow,
  samplesBefore: RunSamples,
  samplesAfter: RunSamples,
): MeasuredChange | undefined {
  if (row.dimension === 'measurement' || !isLevelField(row.field)) return undefined;
  const sampleAfter = samplesAfter.of(row);
  const sampleBefore = samplesBefore.of(old);
  // A `mix` whole may be sent as fractions one run and as percent the next: compare on one scale.
  const oldValue = sameScale(old, row.unit);
  if (oldValue === undefined) return undefined;
  const measured = measureChange(
    { value: oldValue, n: sampleBefore?.n, nSource: sampleBefore?.source },
    { value: row.value, n: sampleAfter?.n, nSource: sampleAfter?.source },
    row.unit,
    sampleAfter !== undefined,
  );
  // A value outside what its unit allows is measured (the reader sees the numbers) but never judged.
  const invalid = isInvalidRow(old) || isInvalidRow(row);
  return {
    ...(invalid ? { note: 'invalid-value' as const } : {}),
    endpoint: row.endpoint,
    field: row.field,
    dimension: row.dimension,
    dimension_id: row.dimension_id,
    dimension_label: row.dimension_label,
    unit: row.unit,
    before: oldValue,
    after: row.value,
    ...measured,
    ...(invalid ? { p: null, shares: null } : {}),
  };
}

function sameScale(row: InsightRow, unit: InsightRow['unit']): number | undefined {
  if (row.unit === unit) return row.value;
  if (row.unit === 'fraction' && unit === 'percent') return row.value * 100;
  if (row.unit === 'percent' && unit === 'fraction') return row.value / 100;
  return undefined;
}
