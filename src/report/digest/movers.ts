import type { Store } from '../../store/db.js';
import { derivedSnapshots, type MetricValueRow, metricValuesOf } from '../../store/metric-reads.js';
import type { StoredSnapshot } from '../../store/snapshots.js';

/**
 * "Biggest changes across the portfolio": the metric rows (metrics layer) of each set's covered run
 * against its previous run, ranked by how much they moved. Units differ (a share in percent, a count
 * of errors), so a move is scored on one scale: percent and fraction values by their change in
 * points, everything else relative to its earlier value.
 */

export interface PortfolioMove {
  querySet: string;
  brand: string;
  endpoint: string;
  field: string;
  dimension: string;
  from: number;
  to: number;
  unit: MetricValueRow['unit'];
  score: number;
}

const rowKey = (row: MetricValueRow) =>
  [row.query_set_id, row.endpoint, row.field, row.dimension, row.dimension_id ?? ''].join('\u0000');

export function moveScore(from: number, to: number, unit: MetricValueRow['unit']): number {
  const change = Math.abs(to - from);
  if (unit === 'percent') return change / 100;
  if (unit === 'fraction') return change;
  return change / Math.max(Math.abs(from), 1);
}

/** The `limit` largest moves between `previous` and `current` rows (of any number of sets). */
export function biggestMoves(
  previous: readonly MetricValueRow[],
  current: readonly MetricValueRow[],
  limit = 10,
): PortfolioMove[] {
  const before = new Map(previous.map((row) => [rowKey(row), row]));
  const moves: PortfolioMove[] = [];
  for (const row of current) {
    const earlier = before.get(rowKey(row));
    if (!earlier || earlier.value === row.value) continue;
    moves.push({
      querySet: row.query_set,
      brand: row.brand ?? '',
      endpoint: row.endpoint,
      field: row.field,
      dimension: row.dimension_label ?? row.dimension,
      from: earlier.value,
      to: row.value,
      unit: row.unit,
      score: moveScore(earlier.value, row.value, row.unit),
    });
  }
  return moves.sort((a, b) => b.score - a.score).slice(0, limit);
}

/** The metric rows of a snapshot's run and of the run before it (none when it has no earlier run). */
export async function movesOf(
  store: Store,
  snapshot: StoredSnapshot,
): Promise<{ previous: MetricValueRow[]; current: MetricValueRow[] }> {
  const derived = await derivedSnapshots(store, {
    account: snapshot.account,
    querySetIds: [snapshot.querySet.id],
  });
  const at = derived.findIndex((d) => d.run_id === snapshot.run.id);
  if (at < 0) return { previous: [], current: [] };
  const previous = at > 0 ? await metricValuesOf(store, [derived[at - 1]!]) : [];
  return { previous, current: await metricValuesOf(store, [derived[at]!]) };
}
