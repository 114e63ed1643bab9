import type { Store } from '../store/sql.js';
import { type InsightRow, sampleRowsNeeded } from './sample-sizes.js';

/**
 * The rows behind the n of one metric across many runs, in one statement whatever the number of
 * runs. Judging a series of 100 runs run by run read each run whole (hundreds of rows, 100 round
 * trips) and made a judged series six times slower than the plain one; this reads only the counts
 * `runSamples` needs for this metric (none for a metric that is not a share), on the
 * `(snapshot_id, endpoint, field)` index, one branch of a UNION ALL per count.
 */

const list = (values: readonly unknown[]) => values.map(() => '?').join(', ');

/** Snapshot id → the count rows of that snapshot that the n of `metric` is derived from. */
export async function sampleRowsOf(
  store: Store,
  snapshotIds: readonly number[],
  metric: Pick<InsightRow, 'endpoint' | 'field' | 'dimension'>,
): Promise<Map<number, InsightRow[]>> {
  const bySnapshot = new Map<number, InsightRow[]>(snapshotIds.map((id) => [id, []]));
  // Each count once: an engine breakdown of a share can name the engine count twice (its base's and its own).
  const pairs = [...new Map(sampleRowsNeeded(metric).map((pair) => [pair.join('\u0000'), pair])).values()];
  if (snapshotIds.length === 0 || pairs.length === 0) return bySnapshot;
  const one = `SELECT snapshot_id, endpoint, field, dimension, dimension_id, dimension_label, value, unit
     FROM metric_values WHERE snapshot_id IN (${list(snapshotIds)}) AND endpoint = ? AND field = ?`;
  const rows = await store.all<InsightRow & { snapshot_id: number }>(
    pairs.map(() => one).join(' UNION ALL '),
    pairs.flatMap((pair) => [...snapshotIds, ...pair]),
  );
  for (const { snapshot_id, ...row } of rows) bySnapshot.get(Number(snapshot_id))?.push(row);
  return bySnapshot;
}
