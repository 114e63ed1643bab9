import type { MetricUnit } from '../api/field-units.js';
import type { Logger } from '../log.js';
import { printable } from '../printable.js';
import {
  type DerivedSnapshot,
  derivedSnapshots,
  type MetricValueRow,
  metricValuesOf,
} from '../store/metric-reads.js';
import type { Store } from '../store/sql.js';
import { levelOf } from './metric-names.js';
import { isInvalidRow } from './valid-values.js';

/**
 * What a sync pass says about the figures of the runs it stored, once, where an operator reads it:
 * - a level outside what its unit allows (a presence of 150 %, a negative count) is one warning line
 *   per field, naming the run, endpoint, field and value. The figure stays in the store as sent; every
 *   surface shows it as "—" and nothing judges or alerts on it (valid-values.ts).
 * - a change the service sent (`delta`, `deltaW`…) that is not the difference of the two stored runs
 *   beyond rounding is counted, and the count said in one line per pass. Changes are taken from the
 *   stored runs (run-insight.ts); the line tells the operator the service reads its own fields
 *   differently (the spec does not say which figure `presence/by-engine`'s `delta` belongs to).
 */

/** A run whose snapshot the pass completed. */
export interface StoredRunRef {
  account: string;
  querySetId: number;
  runId: number;
}

/** The tolerance of a change against the stored difference: the API rounds levels and changes apart. */
function rounding(unit: MetricUnit): number {
  return unit === 'fraction' ? 0.0006 : 0.051;
}

const BOUNDS: Readonly<Partial<Record<MetricUnit, string>>> = {
  percent: 'a share of 0–100 %',
  fraction: 'a share of 0–1',
  score: 'a score of 0–100',
  count: 'a count of 0 or more',
  ratio: 'a ratio of 0 or more',
};

export interface FigureCheckResult {
  invalid: number;
  disagreements: number;
}

export async function checkStoredRuns(
  store: Store,
  runs: readonly StoredRunRef[],
  logger: Logger,
): Promise<FigureCheckResult> {
  const result: FigureCheckResult = { invalid: 0, disagreements: 0 };
  let example: string | undefined;
  const histories = new Map<string, DerivedSnapshot[]>();
  for (const run of runs) {
    const key = `${run.account}\u0000${run.querySetId}`;
    let history = histories.get(key);
    if (!history) {
      history = await derivedSnapshots(store, { account: run.account, querySetIds: [run.querySetId] });
      histories.set(key, history);
    }
    const at = history.findIndex((snapshot) => snapshot.run_id === run.runId);
    if (at < 0) continue;
    const after = await metricValuesOf(store, [history[at]!]);
    const where = `account ${printable(run.account)}: query set ${run.querySetId}, run ${run.runId}`;
    for (const row of after.filter(isInvalidRow)) {
      result.invalid++;
      logger.warn(
        `${where}: ${figureName(row)} = ${row.value} is not ${BOUNDS[row.unit] ?? 'a finite number'}: stored as sent, shown as "—", not judged or alerted on`,
      );
    }
    if (at === 0) continue;
    const before = await metricValuesOf(store, [history[at - 1]!]);
    for (const found of disagreements(before, after)) {
      result.disagreements++;
      example ??= `${figureName(found.row)} of run ${run.runId} in query set ${run.querySetId}: ${found.row.value} against ${round(found.stored)}`;
    }
  }
  if (result.disagreements > 0) {
    logger.warn(
      `the service's own change disagrees with the difference of the two stored runs for ${result.disagreements} figure(s) (e.g. ${example}): reportd shows and judges the stored difference`,
    );
  }
  return result;
}

/** The change rows whose value is not `after − before` of their level (both runs stored). */
function disagreements(
  before: readonly MetricValueRow[],
  after: readonly MetricValueRow[],
): { row: MetricValueRow; stored: number }[] {
  const levels = (rows: readonly MetricValueRow[]) =>
    new Map(rows.map((row) => [rowKey(row.endpoint, row.field, row), row]));
  const was = levels(before);
  const now = levels(after);
  const out: { row: MetricValueRow; stored: number }[] = [];
  for (const row of after) {
    const level = levelOf(row.endpoint, row.field);
    if (level?.kind !== 'change') continue;
    const a = now.get(rowKey(row.endpoint, level.field, row));
    const b = was.get(rowKey(row.endpoint, level.field, row));
    if (!a || !b || isInvalidRow(a) || isInvalidRow(b) || !Number.isFinite(row.value)) continue;
    const stored = a.value - b.value;
    if (Math.abs(stored - row.value) > rounding(a.unit)) out.push({ row, stored });
  }
  return out;
}

function rowKey(endpoint: string, field: string, row: Pick<MetricValueRow, 'dimension' | 'dimension_id'>) {
  return [endpoint, field, row.dimension, row.dimension_id ?? ''].join('\u0000');
}

/** "presence.by-engine weighted (engine 3)": the endpoint, field and member as the API names them. */
function figureName(row: MetricValueRow): string {
  const member = row.dimension_id ? ` (${row.dimension} ${printable(row.dimension_id)})` : '';
  return `${row.endpoint} ${row.field}${member}`;
}

function round(value: number): number {
  return Number(value.toPrecision(6));
}
