import type { Store } from './db.js';

/**
 * Every (account, query set) with at least one complete snapshot, by set id: what `reportd render
 * --set all` renders. Reads ids only; the snapshots themselves come through `listSnapshots`.
 */
export function setsWithCompleteSnapshots(
  store: Store,
  account?: string,
): { account: string; querySetId: number }[] {
  const rows = store.db
    .prepare(
      `SELECT DISTINCT account, query_set_id FROM snapshots
       WHERE state = 'complete' AND (? IS NULL OR account = ?)
       ORDER BY query_set_id, account`,
    )
    .all(account ?? null, account ?? null) as { account: string; query_set_id: number }[];
  return rows.map((row) => ({ account: row.account, querySetId: row.query_set_id }));
}
