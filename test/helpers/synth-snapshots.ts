import type { Store } from '../../src/store/db.js';

/**
 * Many stored snapshots quickly, for the backfill crash test and `bench:export`: `count` new published
 * runs of the template's set, each with a complete snapshot whose payloads are copies of the
 * template's (the payloads are what derivation reads; their run does not change their shape).
 * Rows are not derived: callers choose between `backfillMetricRows` and a crash.
 */
export function copySnapshots(store: Store, templateSnapshotId: number, count: number): number[] {
  const db = store.db;
  const template = db
    .prepare('SELECT account, query_set_id, run_id FROM snapshots WHERE id = ?')
    .get(templateSnapshotId) as { account: string; query_set_id: number; run_id: number };
  const firstRun =
    (db
      .prepare('SELECT MAX(id) FROM runs WHERE account = ? AND query_set_id = ?')
      .pluck()
      .get(template.account, template.query_set_id) as number) + 1;
  const addRun = db.prepare(
    `INSERT INTO runs (account, query_set_id, id, display_name, created_at, first_seen_at) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const addSnapshot = db.prepare(
    `INSERT INTO snapshots (account, query_set_id, run_id, state, started_at, completed_at)
     VALUES (?, ?, ?, 'complete', ?, ?) RETURNING id`,
  );
  const copyPayloads = db.prepare(
    `INSERT INTO payloads (snapshot_id, endpoint_key, json, fetched_at, validation_error, attempts)
     SELECT ?, endpoint_key, json, fetched_at, validation_error, attempts FROM payloads WHERE snapshot_id = ?`,
  );
  return db.transaction(() => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const runId = firstRun + i;
      const at = new Date(Date.UTC(2030, 0, 1) + i * 86_400_000).toISOString();
      addRun.run(template.account, template.query_set_id, runId, `Copy ${i + 1}`, at, at);
      const { id } = addSnapshot.get(template.account, template.query_set_id, runId, at, at) as {
        id: number;
      };
      copyPayloads.run(id, templateSnapshotId);
      ids.push(id);
    }
    return ids;
  })();
}
