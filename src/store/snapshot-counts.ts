import { reportableSql, type SnapshotState, stateSql } from './snapshot-state.js';
import type { Store } from './sql.js';

/** Stored snapshots per state as readers see them (a settled partial counts as `settled`): `/metrics`. */
export async function countSnapshotsByState(store: Store): Promise<Map<SnapshotState, number>> {
  const rows = await store.all<{ state: SnapshotState; n: number }>(
    `SELECT ${stateSql('s')} AS state, COUNT(*) AS n FROM snapshots s GROUP BY ${stateSql('s')}`,
  );
  return new Map(rows.map((row) => [row.state, Number(row.n)]));
}

/** Query sets with at least one reportable (complete or settled) snapshot, in id order: the demo's. */
export async function setsWithReportableSnapshots(store: Store): Promise<number[]> {
  const rows = await store.all<{ id: number }>(
    `SELECT DISTINCT s.query_set_id AS id FROM snapshots s WHERE ${reportableSql('s')} ORDER BY s.query_set_id`,
  );
  return rows.map((row) => Number(row.id));
}
