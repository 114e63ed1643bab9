import type { Store } from './sql.js';

/**
 * Every (account, query set) with at least one complete snapshot, by set id: what `reportd render
 * --set all` renders. Reads ids only; the snapshots themselves come through `listSnapshots`.
 */
export async function setsWithCompleteSnapshots(
  store: Store,
  account?: string,
): Promise<{ account: string; querySetId: number }[]> {
  const rows = await store.all<{ account: string; query_set_id: number }>(
    `SELECT DISTINCT account, query_set_id FROM snapshots
     WHERE state = 'complete' AND (CAST(? AS TEXT) IS NULL OR account = ?)
     ORDER BY query_set_id, account`,
    [account ?? null, account ?? null],
  );
  return rows.map((row) => ({ account: row.account, querySetId: row.query_set_id }));
}
