import type { Store } from './db.js';

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
): AlertCursor | undefined {
  return store.db
    .prepare(
      'SELECT run_id, run_created_at FROM alert_cursors WHERE alert = ? AND account = ? AND query_set_id = ?',
    )
    .get(alert, account, querySetId) as AlertCursor | undefined;
}

export function setAlertCursor(
  store: Store,
  key: { alert: string; account: string; querySetId: number },
  run: { runId: number; createdAt: string },
  now: number,
): void {
  store.db
    .prepare(
      `INSERT INTO alert_cursors (alert, account, query_set_id, run_id, run_created_at, evaluated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (alert, account, query_set_id)
       DO UPDATE SET run_id = excluded.run_id, run_created_at = excluded.run_created_at, evaluated_at = excluded.evaluated_at`,
    )
    .run(key.alert, key.account, key.querySetId, run.runId, run.createdAt, now);
}

/** Stores what fired; a second write for the same (alert, set, run) keeps the first (it may be sent). */
export function saveFiring(
  store: Store,
  key: { alert: string; account: string; querySetId: number; runId: number },
  content: unknown,
  now: number,
): void {
  store.db
    .prepare(
      `INSERT INTO alert_firings (alert, account, query_set_id, run_id, content, created_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    )
    .run(key.alert, key.account, key.querySetId, key.runId, JSON.stringify(content), now);
}

export function getFiring(
  store: Store,
  key: { alert: string; account: string; querySetId: number; runId: number },
): unknown {
  const text = store.db
    .prepare(
      'SELECT content FROM alert_firings WHERE alert = ? AND account = ? AND query_set_id = ? AND run_id = ?',
    )
    .pluck()
    .get(key.alert, key.account, key.querySetId, key.runId) as string | undefined;
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

/** A valid payload's JSON, or undefined when the snapshot has none for that endpoint (or it drifted). */
export function validPayload(store: Store, snapshotId: number, endpoint: string): unknown {
  const text = store.db
    .prepare(
      'SELECT json FROM payloads WHERE snapshot_id = ? AND endpoint_key = ? AND validation_error IS NULL',
    )
    .pluck()
    .get(snapshotId, endpoint) as string | undefined;
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}
