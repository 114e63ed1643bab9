import type { Store } from '../../src/store/sql.js';

/**
 * Many stored snapshots quickly, for the backfill crash test and `bench:export`: `count` new published
 * runs of the template's set, each with a complete snapshot whose payloads are copies of the
 * template's (the payloads are what derivation reads; their run does not change their shape).
 * Rows are not derived: callers choose between `backfillMetricRows` and a crash.
 */
export async function copySnapshots(
  store: Store,
  templateSnapshotId: number,
  count: number,
): Promise<number[]> {
  const template = (await store.get<{ account: string; query_set_id: number; run_id: number }>(
    'SELECT account, query_set_id, run_id FROM snapshots WHERE id = ?',
    [templateSnapshotId],
  ))!;
  const newest = await store.get<{ last: number }>(
    'SELECT MAX(id) AS last FROM runs WHERE account = ? AND query_set_id = ?',
    [template.account, template.query_set_id],
  );
  const firstRun = Number(newest?.last ?? 0) + 1;
  return store.transaction(async () => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const runId = firstRun + i;
      const at = new Date(Date.UTC(2030, 0, 1) + i * 86_400_000).toISOString();
      await store.run(
        `INSERT INTO runs (account, query_set_id, id, display_name, created_at, first_seen_at) VALUES (?, ?, ?, ?, ?, ?)`,
        [template.account, template.query_set_id, runId, `Copy ${i + 1}`, at, at],
      );
      const { id } = (await store.get<{ id: number }>(
        `INSERT INTO snapshots (account, query_set_id, run_id, state, started_at, completed_at)
         VALUES (?, ?, ?, 'complete', ?, ?) RETURNING id`,
        [template.account, template.query_set_id, runId, at, at],
      ))!;
      await store.run(
        `INSERT INTO payloads (snapshot_id, endpoint_key, json, fetched_at, validation_error, attempts)
         SELECT ?, endpoint_key, json, fetched_at, validation_error, attempts FROM payloads WHERE snapshot_id = ?`,
        [id, templateSnapshotId],
      );
      ids.push(id);
    }
    return ids;
  });
}
