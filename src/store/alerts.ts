import type { Store } from './sql.js';

/**
 * The alerts' memory (migration 12): the newest run each (alert, account, set) was evaluated on, and
 * what fired for an (alert, set, run), stored with its outbox row so the email says what was evaluated.
 */

export interface AlertCursor {
  run_id: number;
  run_created_at: string;
}

export function getAlertCursor(
  store: Store,
  alert: string,
  account: string,
  querySetId: number,
): Promise<AlertCursor | undefined> {
  return store.get<AlertCursor>(
    'SELECT run_id, run_created_at FROM alert_cursors WHERE alert = ? AND account = ? AND query_set_id = ?',
    [alert, account, querySetId],
  );
}

export async function setAlertCursor(
  store: Store,
  key: { alert: string; account: string; querySetId: number },
  run: { runId: number; createdAt: string },
  now: number,
): Promise<void> {
  await store.run(
    `INSERT INTO alert_cursors (alert, account, query_set_id, run_id, run_created_at, evaluated_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (alert, account, query_set_id)
     DO UPDATE SET run_id = excluded.run_id, run_created_at = excluded.run_created_at, evaluated_at = excluded.evaluated_at`,
    [key.alert, key.account, key.querySetId, run.runId, run.createdAt, now],
  );
}

export async function saveFiring(
  store: Store,
  key: { alert: string; account: string; querySetId: number; runId: number },
  content: unknown,
  now: number,
): Promise<void> {
  await store.run(
    `INSERT INTO alert_firings (alert, account, query_set_id, run_id, content, created_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    [key.alert, key.account, key.querySetId, key.runId, JSON.stringify(content), now],
  );
}

export async function getFiring(
  store: Store,
  key: { alert: string; account: string; querySetId: number; runId: number },
): Promise<unknown> {
  const row = await store.get<{ content: string }>(
    'SELECT content FROM alert_firings WHERE alert = ? AND account = ? AND query_set_id = ? AND run_id = ?',
    [key.alert, key.account, key.querySetId, key.runId],
  );
  return row === undefined ? undefined : (JSON.parse(row.content) as unknown);
}

export async function validPayload(store: Store, snapshotId: number, endpoint: string): Promise<unknown> {
  const row = await store.get<{ json: string }>(
    'SELECT json FROM payloads WHERE snapshot_id = ? AND endpoint_key = ? AND validation_error IS NULL',
    [snapshotId, endpoint],
  );
  return row === undefined ? undefined : (JSON.parse(row.json) as unknown);
}
