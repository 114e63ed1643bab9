import type { Significance } from '../../insight/changes.js';
import { compareRuns } from '../../insight/row-changes.js';
import { figureOf } from '../../insight/sample-sizes.js';
import { derivedSnapshots, type MetricValueRow, metricValuesOf } from '../../store/metric-reads.js';
import type { StoredSnapshot } from '../../store/snapshots.js';
import type { Store } from '../../store/sql.js';

/**
 * "Biggest changes across the portfolio": each set's covered run against its previous run, through
 * the noise model (src/insight/changes.ts), so only level metrics take part — never a field that is
 * itself a change (`delta`, `deltaTimesCited`) or a previous value. Each set's changes are judged as
 * that run's family, as its export judges them. Likely changes come first, then the rest; within
 * each, the larger move first. Units differ (a share in percent, a count of errors), so
 * size is scored on one scale: shares by their change in points, everything else relative to its
 * earlier value.
 */

export interface PortfolioMove {
  querySet: string;
  brand: string;
  endpoint: string;
  field: string;
  /** The dimension (`engine`, `intent`, …), its member's id and label: what moved, in words. */
  dimension: string;
  dimensionId: string | null;
  dimensionLabel: string | null;
  from: number;
  to: number;
  unit: MetricValueRow['unit'];
  score: number;
  significance: Significance;
  /** The interval of the change in points, at the level its family asks for; null when there is none. */
  low: number | null;
  high: number | null;
  nAfter: number | null;
}

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
  const setKey = (row: MetricValueRow) => `${row.account}\u0000${row.query_set_id}`;
  const before = new Map<string, MetricValueRow[]>();
  for (const row of previous) before.set(setKey(row), [...(before.get(setKey(row)) ?? []), row]);
  const after = new Map<string, MetricValueRow[]>();
  for (const row of current) after.set(setKey(row), [...(after.get(setKey(row)) ?? []), row]);
  // One move per figure of a set: a figure two endpoints report (weighted presence, again in the life
  // scatter; Gravity+ per engine, again as gPlus) is one change, listed under the figure's own row.
  const figures = new Map<string, { move: PortfolioMove; own: boolean }>();
  for (const [key, rows] of after) {
    const first = rows[0]!;
    for (const change of compareRuns(before.get(key) ?? [], rows)) {
      if (change.before === change.after) continue;
      const figure = figureOf(change);
      const own =
        figure ===
        [change.endpoint, change.field, change.dimension, change.dimension_id ?? ''].join('\u0000');
      const seen = figures.get(`${key}\u0000${figure}`);
      if (seen && (seen.own || !own)) continue;
      const move: PortfolioMove = {
        querySet: first.query_set,
        brand: first.brand ?? '',
        endpoint: change.endpoint,
        field: change.field,
        dimension: change.dimension,
        dimensionId: change.dimension_id,
        dimensionLabel: change.dimension_label,
        from: change.before,
        to: change.after,
        unit: change.unit,
        score: moveScore(change.before, change.after, change.unit),
        significance: change.significance,
        low: change.low,
        high: change.high,
        nAfter: change.nAfter,
      };
      figures.set(`${key}\u0000${figure}`, { move, own });
    }
  }
  const moves = [...figures.values()].map(({ move }) => move);
  const rank = (move: PortfolioMove) => (move.significance === 'likely' ? 0 : 1);
  return moves.sort((a, b) => rank(a) - rank(b) || b.score - a.score).slice(0, limit);
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
