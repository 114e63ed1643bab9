import type { Store } from './sql.js';

/**
 * `settled`: not every payload is valid, but each failing one has used up `max_payload_retries`
 * (the API's answer drifted from its schema). Such a snapshot will not get better by waiting, so it is
 * reportable like a complete one: the report says "Data unavailable" where data is missing and names
 * the drifted endpoints. Stored as state `partial` plus `settled_at` (migration 005: SQLite cannot
 * widen the CHECK of migration 001 without rebuilding the table its payloads cascade from).
 */
export type SnapshotState = 'pending' | 'partial' | 'settled' | 'complete';

/** The states a report may be made from. */
export function isReportable(state: SnapshotState | undefined): boolean {
  return state === 'complete' || state === 'settled';
}

/** SQL for a snapshot's state as readers see it (`alias` is the snapshots table's alias). */
export function stateSql(alias: string): string {
  return `CASE WHEN ${alias}.state = 'partial' AND ${alias}.settled_at IS NOT NULL THEN 'settled' ELSE ${alias}.state END`;
}

/** SQL condition: the snapshot is reportable (complete or settled). */
export function reportableSql(alias: string): string {
  return `(${alias}.state = 'complete' OR ${alias}.settled_at IS NOT NULL)`;
}

/**
 * Locks the snapshot's row until the caller's transaction ends, so writers of one snapshot (its
 * payloads, its derived rows) take turns on PostgreSQL; SQLite's write transaction already does.
 * Returns the state it had (undefined: no such snapshot), read by the same statement that locks.
 */
export async function lockSnapshot(store: Store, snapshotId: number): Promise<SnapshotState | undefined> {
  const forUpdate = store.engine === 'postgres' ? ' FOR UPDATE' : '';
  const row = await store.get<{ state: SnapshotState }>(
    `SELECT ${stateSql('s')} AS state FROM snapshots s WHERE s.id = ?${forUpdate}`,
    [snapshotId],
  );
  return row?.state;
}
