import type { Store } from './sql.js';

/**
 * The reads of `reportd export` beyond the metric rows themselves (metric-reads.ts): the run and
 * query-set context of the exported snapshots, and the lookups that let it name what a selection
 * asks for and the store does not hold.
 */

/** One exported snapshot's run: the `runs` table of an export. */
export interface ExportRunRecord {
  account: string;
  query_set_id: number;
  run_id: number;
  run: string;
  run_created_at: string;
  completed_at: string | null;
  metric_rows: number;
}

/** A query set with its brand: the `query_sets` table of an export. */
export interface ExportQuerySetRecord {
  account: string;
  query_set_id: number;
  query_set: string;
  brand_id: number | null;
  brand: string | null;
  created_at: string;
  state: string;
}

/** Ids per statement: far under SQLite's and PostgreSQL's limits on parameters. */
const CHUNK = 500;

/** The run of each derived snapshot, in the order of `snapshotIds` (an id not derived is left out). */
export async function exportRuns(store: Store, snapshotIds: readonly number[]): Promise<ExportRunRecord[]> {
  const byId = new Map<number, ExportRunRecord>();
  for (let start = 0; start < snapshotIds.length; start += CHUNK) {
    const ids = snapshotIds.slice(start, start + CHUNK);
    const rows = await store.all<ExportRunRecord & { snapshot_id: number }>(
      `SELECT s.id AS snapshot_id, s.account, s.query_set_id, s.run_id, r.display_name AS run,
              r.created_at AS run_created_at, s.completed_at, d.rows AS metric_rows
       FROM snapshots s
       JOIN runs r ON r.account = s.account AND r.query_set_id = s.query_set_id AND r.id = s.run_id
       JOIN metric_derivations d ON d.snapshot_id = s.id
       WHERE s.id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    for (const { snapshot_id, ...run } of rows) byId.set(Number(snapshot_id), run);
  }
  // The caller's order (set, then oldest run first) is kept: IN (…) returns rows in no set order.
  return snapshotIds.flatMap((id) => byId.get(id) ?? []);
}

/** Every query set the store knows, with its brand's name, by account then id. */
export async function exportQuerySets(store: Store): Promise<ExportQuerySetRecord[]> {
  return store.all<ExportQuerySetRecord>(
    `SELECT q.account, q.id AS query_set_id, q.name AS query_set, q.brand_id, b.name AS brand,
            q.created_at, q.state
     FROM query_sets q LEFT JOIN brands b ON b.account = q.account AND b.id = q.brand_id
     ORDER BY q.account, q.id`,
  );
}

/** Ids of the query sets (of one account, or any) that have at least one derived snapshot. */
export async function derivedQuerySetIds(store: Store, account?: string): Promise<number[]> {
  const rows = await store.all<{ query_set_id: number }>(
    `SELECT DISTINCT s.query_set_id FROM metric_derivations d JOIN snapshots s ON s.id = d.snapshot_id
     WHERE (CAST(? AS TEXT) IS NULL OR s.account = ?)`,
    [account ?? null, account ?? null],
  );
  return rows.map((row) => Number(row.query_set_id));
}

export async function accountIsStored(store: Store, name: string): Promise<boolean> {
  return (await store.get('SELECT 1 AS one FROM accounts WHERE name = ?', [name])) !== undefined;
}

/** Whether the store knows query set `id` (of `account`, when given), derived or not. */
export async function querySetIsStored(store: Store, id: number, account?: string): Promise<boolean> {
  const row = await store.get(
    'SELECT 1 AS one FROM query_sets WHERE id = ? AND (CAST(? AS TEXT) IS NULL OR account = ?)',
    [id, account ?? null, account ?? null],
  );
  return row !== undefined;
}
