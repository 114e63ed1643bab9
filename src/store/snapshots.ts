import { newestRunFirst } from './query-sets.js';
import { reportableSql, type SnapshotState, stateSql } from './snapshot-state.js';
import type { Store } from './sql.js';

/**
 * The read side the reports use: a snapshot with its catalog context and every payload, parsed.
 * Reports never call the API, so everything they show comes through here.
 */
export interface StoredSnapshot {
  id: number;
  account: string;
  brand: { id: number; name: string };
  querySet: { id: number; name: string; details: unknown };
  run: { id: number; display_name: string; created_at: string };
  state: SnapshotState;
  completedAt: string | null;
  /** By endpoint key (`presence.gross`); `error` is the validation error of a payload stored raw. */
  payloads: Record<string, { data: unknown; error: string | null }>;
}

interface SnapshotJoinRow {
  id: number;
  account: string;
  query_set_id: number;
  run_id: number;
  state: SnapshotState;
  completed_at: string | null;
  run_display_name: string;
  run_created_at: string;
  set_name: string;
  set_details: string | null;
  brand_id: number | null;
  brand_name: string | null;
}

const SELECT_SNAPSHOTS = `
  SELECT s.id, s.account, s.query_set_id, s.run_id, ${stateSql('s')} AS state, s.completed_at,
         r.display_name AS run_display_name, r.created_at AS run_created_at,
         q.name AS set_name, q.details AS set_details, q.brand_id, b.name AS brand_name
  FROM snapshots s
  JOIN runs r ON r.account = s.account AND r.query_set_id = s.query_set_id AND r.id = s.run_id
  JOIN query_sets q ON q.account = s.account AND q.id = s.query_set_id
  LEFT JOIN brands b ON b.account = q.account AND b.id = q.brand_id
  WHERE s.query_set_id = ? AND (CAST(? AS TEXT) IS NULL OR s.account = ?)`;

async function selectRows(
  store: Store,
  filter: { querySetId: number; account?: string; runId?: number; completeOnly: boolean },
): Promise<SnapshotJoinRow[]> {
  let sql = SELECT_SNAPSHOTS;
  const params: unknown[] = [filter.querySetId, filter.account ?? null, filter.account ?? null];
  if (filter.runId !== undefined) {
    sql += ' AND s.run_id = ?';
    params.push(filter.runId);
  }
  if (filter.completeOnly) sql += ` AND ${reportableSql('s')}`;
  const rows = await store.all<SnapshotJoinRow>(sql, params);
  return rows.sort((a, b) =>
    newestRunFirst(
      { id: a.run_id, created_at: a.run_created_at },
      { id: b.run_id, created_at: b.run_created_at },
    ),
  );
}

async function hydrate(store: Store, row: SnapshotJoinRow): Promise<StoredSnapshot> {
  const payloads: StoredSnapshot['payloads'] = {};
  const payloadRows = await store.all<{
    endpoint_key: string;
    json: string;
    validation_error: string | null;
  }>('SELECT endpoint_key, json, validation_error FROM payloads WHERE snapshot_id = ?', [row.id]);
  for (const payload of payloadRows) {
    payloads[payload.endpoint_key] = { data: JSON.parse(payload.json), error: payload.validation_error };
  }
  return {
    id: row.id,
    account: row.account,
    // A set named only in sync.query_sets (no brand list showed it) has no known brand.
    brand: { id: row.brand_id ?? 0, name: row.brand_name ?? '' },
    querySet: {
      id: row.query_set_id,
      name: row.set_name,
      details: row.set_details === null ? null : JSON.parse(row.set_details),
    },
    run: { id: row.run_id, display_name: row.run_display_name, created_at: row.run_created_at },
    state: row.state,
    completedAt: row.completed_at,
    payloads,
  };
}

/**
 * The snapshot of one run (in whatever state it is: check `state`), or, without `runId`, the newest
 * reportable (complete or settled) snapshot of the set. `account` narrows the search when several accounts see the same id.
 */
export async function findSnapshot(
  store: Store,
  query: { querySetId: number; runId?: number; account?: string },
): Promise<StoredSnapshot | undefined> {
  const rows = await selectRows(store, { ...query, completeOnly: query.runId === undefined });
  const row = rows[0];
  return row ? hydrate(store, row) : undefined;
}

export async function listSnapshots(
  store: Store,
  query: { querySetId: number; account?: string; includeIncomplete?: boolean },
): Promise<StoredSnapshot[]> {
  const rows = await selectRows(store, { ...query, completeOnly: !query.includeIncomplete });
  const snapshots: StoredSnapshot[] = [];
  for (const row of rows) snapshots.push(await hydrate(store, row));
  return snapshots;
}

export async function snapshotStates(
  store: Store,
  account: string,
  querySetId: number,
): Promise<Map<number, { id: number; state: SnapshotState }>> {
  const rows = await store.all<{ id: number; run_id: number; state: SnapshotState }>(
    `SELECT id, run_id, ${stateSql('snapshots')} AS state FROM snapshots WHERE account = ? AND query_set_id = ?`,
    [account, querySetId],
  );
  return new Map(rows.map((row) => [row.run_id, { id: row.id, state: row.state }]));
}
