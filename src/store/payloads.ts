import { metricEndpoints } from '../api/endpoints.js';
import { scrubOrNull } from '../secrets.js';
import type { Store } from './db.js';
import { deriveMetricRows } from './metric-values.js';

// Error text is scrubbed where it is written: it may quote a server's reply or an exception, and a
// stored secret would outlive a later rotation (reads only know the secrets registered by then).

/**
 * Writing snapshots: one row per (account, set, run), one payload row per metric endpoint. Every
 * payload is committed in the same transaction as the snapshot's new state, so the store never says
 * `complete` without all payloads, and a crash loses at most the payloads still in flight.
 */

export type SnapshotState = 'pending' | 'partial' | 'complete';

/** The 34 metric endpoint keys a snapshot needs before it is complete. */
export const REQUIRED_ENDPOINTS: readonly string[] = metricEndpoints.map((endpoint) => endpoint.key);

const iso = (at: number) => new Date(at).toISOString();

export interface SnapshotRef {
  account: string;
  querySetId: number;
  runId: number;
}

/** Returns the snapshot's id and state, creating it `pending` if this run has none yet. */
export function ensureSnapshot(
  store: Store,
  ref: SnapshotRef,
  at: number,
): { id: number; state: SnapshotState } {
  store.db
    .prepare(
      `INSERT INTO snapshots (account, query_set_id, run_id, state, started_at) VALUES (?, ?, ?, 'pending', ?)
       ON CONFLICT (account, query_set_id, run_id) DO NOTHING`,
    )
    .run(ref.account, ref.querySetId, ref.runId, iso(at));
  return store.db
    .prepare('SELECT id, state FROM snapshots WHERE account = ? AND query_set_id = ? AND run_id = ?')
    .get(ref.account, ref.querySetId, ref.runId) as { id: number; state: SnapshotState };
}

/**
 * Stores one payload (valid, or raw with its validation error) and moves the snapshot's state in the
 * same transaction. A valid payload is never overwritten: snapshots are immutable once fetched.
 * Returns the snapshot's state after the commit.
 */
export function savePayload(
  store: Store,
  snapshotId: number,
  endpointKey: string,
  payload: { data: unknown; validationError: string | null },
  at: number,
): SnapshotState {
  const db = store.db;
  return db
    .transaction((): SnapshotState => {
      db.prepare(
        `INSERT INTO payloads (snapshot_id, endpoint_key, json, fetched_at, validation_error, attempts)
         VALUES (?, ?, ?, ?, ?, 1)
         ON CONFLICT (snapshot_id, endpoint_key) DO UPDATE SET json = excluded.json,
           fetched_at = excluded.fetched_at, validation_error = excluded.validation_error,
           attempts = payloads.attempts + 1
         WHERE payloads.validation_error IS NOT NULL`,
      ).run(
        snapshotId,
        endpointKey,
        JSON.stringify(payload.data ?? null),
        iso(at),
        scrubOrNull(payload.validationError),
      );
      const before = db.prepare('SELECT state FROM snapshots WHERE id = ?').pluck().get(snapshotId);
      const state = computeState(store, snapshotId);
      db.prepare(
        `UPDATE snapshots SET state = ?,
           completed_at = CASE WHEN ? = 'complete' THEN COALESCE(completed_at, ?) END
         WHERE id = ?`,
      ).run(state, state, iso(at), snapshotId);
      // The tidy rows commit with the completion mark: no reader ever sees a complete snapshot
      // without its rows, nor rows of a snapshot that is not complete.
      if (state === 'complete' && before !== 'complete') deriveMetricRows(store, snapshotId);
      return state;
    })
    .immediate();
}

function computeState(store: Store, snapshotId: number): SnapshotState {
  const rows = store.db
    .prepare('SELECT endpoint_key, validation_error FROM payloads WHERE snapshot_id = ?')
    .all(snapshotId) as { endpoint_key: string; validation_error: string | null }[];
  const valid = new Set(rows.filter((row) => row.validation_error === null).map((row) => row.endpoint_key));
  if (REQUIRED_ENDPOINTS.every((key) => valid.has(key))) return 'complete';
  return rows.some((row) => row.validation_error !== null) ? 'partial' : 'pending';
}

/**
 * The endpoints still to fetch for a snapshot: those never stored, and those stored invalid fewer than
 * `maxAttempts` times (a server bug may be fixed by the next pass; a persistent one must not cost
 * requests forever).
 */
export function endpointsToFetch(store: Store, snapshotId: number, maxAttempts: number): string[] {
  const rows = store.db
    .prepare('SELECT endpoint_key, validation_error, attempts FROM payloads WHERE snapshot_id = ?')
    .all(snapshotId) as { endpoint_key: string; validation_error: string | null; attempts: number }[];
  const byKey = new Map(rows.map((row) => [row.endpoint_key, row]));
  return REQUIRED_ENDPOINTS.filter((key) => {
    const row = byKey.get(key);
    return !row || (row.validation_error !== null && row.attempts < maxAttempts);
  });
}

/** Payloads of a snapshot that are stored but invalid, with their error and attempt count. */
export function invalidPayloads(
  store: Store,
  snapshotId: number,
): { endpoint: string; error: string; attempts: number }[] {
  return store.db
    .prepare(
      `SELECT endpoint_key AS endpoint, validation_error AS error, attempts FROM payloads
       WHERE snapshot_id = ? AND validation_error IS NOT NULL ORDER BY endpoint_key`,
    )
    .all(snapshotId) as { endpoint: string; error: string; attempts: number }[];
}
