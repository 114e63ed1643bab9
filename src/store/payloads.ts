import { metricEndpoints } from '../api/endpoints.js';
import { scrubOrNull } from '../secrets.js';
import { deriveMetricRows } from './metric-values.js';
import { isReportable, lockSnapshot, type SnapshotState } from './snapshot-state.js';
import type { Store } from './sql.js';

// Error text is scrubbed where it is written: it may quote a server's reply or an exception, and a
// stored secret would outlive a later rotation (reads only know the secrets registered by then).

/**
 * Writing snapshots: one row per (account, set, run), one payload row per metric endpoint. Every
 * payload is committed in the same transaction as the snapshot's new state, so the store never says
 * `complete` without all payloads, and a crash loses at most the payloads still in flight.
 */

/** One first fetch plus `max_payload_retries` re-fetches of a payload that keeps failing validation. */
export function maxPayloadAttempts(maxPayloadRetries: number): number {
  return 1 + Math.max(0, maxPayloadRetries);
}

/** The 34 metric endpoint keys a snapshot needs before it is complete. */
export const REQUIRED_ENDPOINTS: readonly string[] = metricEndpoints.map((endpoint) => endpoint.key);

const iso = (at: number) => new Date(at).toISOString();

export interface SnapshotRef {
  account: string;
  querySetId: number;
  runId: number;
}

/** Returns the snapshot's id and state, creating it `pending` if this run has none yet. */
export async function ensureSnapshot(
  store: Store,
  ref: SnapshotRef,
  at: number,
): Promise<{ id: number; state: SnapshotState }> {
  await store.run(
    `INSERT INTO snapshots (account, query_set_id, run_id, state, started_at) VALUES (?, ?, ?, 'pending', ?)
     ON CONFLICT (account, query_set_id, run_id) DO NOTHING`,
    [ref.account, ref.querySetId, ref.runId, iso(at)],
  );
  return (await store.get<{ id: number; state: SnapshotState }>(
    'SELECT id, state FROM snapshots WHERE account = ? AND query_set_id = ? AND run_id = ?',
    [ref.account, ref.querySetId, ref.runId],
  ))!;
}

/**
 * Stores one payload (valid, or raw with its validation error) and moves the snapshot's state in the
 * same transaction. A valid payload is never overwritten: snapshots are immutable once fetched.
 * Returns the snapshot's state after the commit. `maxAttempts` (see `maxPayloadAttempts`) decides
 * when failing payloads have had their retries and the snapshot settles.
 */
export async function savePayload(
  store: Store,
  snapshotId: number,
  endpointKey: string,
  payload: { data: unknown; validationError: string | null },
  at: number,
  // sync.max_payload_retries' default (3): what callers that do not sync (tests, tools) assume.
  maxAttempts = maxPayloadAttempts(3),
): Promise<SnapshotState> {
  let json: string;
  let validationError = payload.validationError;
  try {
    json = JSON.stringify(payload.data ?? null);
  } catch (error) {
    // The client bounds depth and size before this, but a payload that still cannot be serialised
    // must fail alone (stored as missing, with why), never abort the pass it arrived in.
    json = 'null';
    validationError = `payload cannot be stored: ${(error as Error).message}`;
  }
  return store.transaction(async () => {
    // The snapshot's row is locked first: two workers storing its last two payloads at once must not
    // each read the other's as missing and leave it pending forever (PostgreSQL; SQLite's write
    // transaction already runs one at a time).
    const was = await lockSnapshot(store, snapshotId);
    const params = [snapshotId, endpointKey, json, iso(at), scrubOrNull(validationError)];
    if (store.engine !== 'postgres') {
      await store.run(UPSERT_PAYLOAD, params);
      return advanceSnapshot(store, snapshotId, was, at, maxAttempts);
    }
    // PostgreSQL: the write and the read of the snapshot's payload states in one round trip. The
    // outer SELECT reads the table as it was when the statement began (the snapshot's lock is
    // already held, so every other writer of it has committed), and takes the written row from
    // RETURNING instead; a valid row the upsert left alone returns nothing and is read as it is.
    const rows = await store.all<PayloadState>(
      `WITH written AS (${UPSERT_PAYLOAD} RETURNING endpoint_key, validation_error, attempts)
       SELECT endpoint_key, validation_error, attempts FROM written
       UNION ALL
       SELECT endpoint_key, validation_error, attempts FROM payloads
       WHERE snapshot_id = ? AND endpoint_key NOT IN (SELECT endpoint_key FROM written)`,
      [...params, snapshotId],
    );
    return advanceSnapshot(store, snapshotId, was, at, maxAttempts, rows);
  });
}

/** A valid payload is never overwritten; an invalid one is, counting the attempt. */
const UPSERT_PAYLOAD = `INSERT INTO payloads (snapshot_id, endpoint_key, json, fetched_at, validation_error, attempts)
       VALUES (?, ?, ?, ?, ?, 1)
       ON CONFLICT (snapshot_id, endpoint_key) DO UPDATE SET json = excluded.json,
         fetched_at = excluded.fetched_at, validation_error = excluded.validation_error,
         attempts = payloads.attempts + 1
       WHERE payloads.validation_error IS NOT NULL`;

interface PayloadState {
  endpoint_key: string;
  validation_error: string | null;
  attempts: number;
}

/**
 * For a snapshot with nothing left to fetch that is not yet reportable (a store from before settling
 * existed): applies the same transition `savePayload` does, in its own transaction.
 */
export function settleSnapshot(
  store: Store,
  snapshotId: number,
  at: number,
  maxAttempts: number,
): Promise<SnapshotState> {
  return store.transaction(async () => {
    const was = await lockSnapshot(store, snapshotId);
    return advanceSnapshot(store, snapshotId, was, at, maxAttempts);
  });
}

/**
 * THE place a snapshot changes state, always inside the caller's write transaction, right after a
 * payload row changed: pending → partial → complete, or partial → settled once every failing
 * payload has used its attempts. Whatever must happen when a snapshot becomes reportable (deriving
 * its metric rows) belongs here, in the same transaction. `was`: its state when `lockSnapshot`
 * locked it, in this transaction.
 */
async function advanceSnapshot(
  store: Store,
  snapshotId: number,
  was: SnapshotState | undefined,
  at: number,
  maxAttempts: number,
  /** The snapshot's payload states after the write, when the write returned them. */
  rows?: PayloadState[],
): Promise<SnapshotState> {
  const state = stateOf(rows ?? (await payloadStates(store, snapshotId)), maxAttempts);
  // Most payloads leave their snapshot as it was (pending until its last one): writing the same
  // state, and the same timestamps, again would only cost a statement per payload.
  if (state === was) return state;
  // `settled` is kept as `partial` + settled_at (see SnapshotState); settled_at never moves back, so
  // a report already sent from a settled snapshot stays explained by the store.
  await store.run(
    `UPDATE snapshots SET state = ?,
       completed_at = CASE WHEN CAST(? AS TEXT) = 'complete' THEN COALESCE(completed_at, ?) END,
       settled_at = CASE WHEN CAST(? AS TEXT) = 'settled' THEN COALESCE(settled_at, ?) ELSE settled_at END
     WHERE id = ?`,
    [state === 'settled' ? 'partial' : state, state, iso(at), state, iso(at), snapshotId],
  );
  // The tidy rows commit with the mark that makes the snapshot reportable: no reader ever sees a
  // reportable snapshot without its rows, nor rows of one that is not. A settled snapshot contributes
  // the rows of its valid payloads; its drifted endpoints have none.
  if (isReportable(state) && !isReportable(was)) await deriveMetricRows(store, snapshotId);
  return state;
}

function stateOf(rows: readonly PayloadState[], maxAttempts: number): SnapshotState {
  const byKey = new Map(rows.map((row) => [row.endpoint_key, row]));
  if (REQUIRED_ENDPOINTS.every((key) => byKey.get(key)?.validation_error === null)) return 'complete';
  const exhausted = REQUIRED_ENDPOINTS.every((key) => {
    const row = byKey.get(key);
    return row !== undefined && (row.validation_error === null || row.attempts >= maxAttempts);
  });
  if (exhausted) return 'settled';
  return rows.some((row) => row.validation_error !== null) ? 'partial' : 'pending';
}

/**
 * The endpoints still to fetch for a snapshot: those never stored, and those stored invalid fewer than
 * `maxAttempts` times (a server bug may be fixed by the next pass; a persistent one must not cost
 * requests forever).
 */
export async function endpointsToFetch(
  store: Store,
  snapshotId: number,
  maxAttempts: number,
): Promise<string[]> {
  const rows = await payloadStates(store, snapshotId);
  const byKey = new Map(rows.map((row) => [row.endpoint_key, row]));
  return REQUIRED_ENDPOINTS.filter((key) => {
    const row = byKey.get(key);
    return !row || (row.validation_error !== null && row.attempts < maxAttempts);
  });
}

function payloadStates(store: Store, snapshotId: number): Promise<PayloadState[]> {
  return store.all('SELECT endpoint_key, validation_error, attempts FROM payloads WHERE snapshot_id = ?', [
    snapshotId,
  ]);
}

/** Payloads of a snapshot that are stored but invalid, with their error and attempt count. */
export function invalidPayloads(
  store: Store,
  snapshotId: number,
): Promise<{ endpoint: string; error: string; attempts: number }[]> {
  return store.all(
    `SELECT endpoint_key AS endpoint, validation_error AS error, attempts FROM payloads
     WHERE snapshot_id = ? AND validation_error IS NOT NULL ORDER BY endpoint_key`,
    [snapshotId],
  );
}

/**
 * Endpoints whose stored payload failed its schema, with how many snapshots (of the account and set,
 * when given) hold one: the API drifted there. For `status` and the daemon's metrics.
 */
export function driftedEndpoints(
  store: Store,
  filter: { account?: string; querySetId?: number } = {},
): Promise<{ endpoint: string; snapshots: number }[]> {
  return store.all(
    `SELECT p.endpoint_key AS endpoint, COUNT(DISTINCT p.snapshot_id) AS snapshots
     FROM payloads p JOIN snapshots s ON s.id = p.snapshot_id
     WHERE p.validation_error IS NOT NULL AND (CAST(? AS TEXT) IS NULL OR s.account = ?)
       AND (CAST(? AS INTEGER) IS NULL OR s.query_set_id = ?)
     GROUP BY p.endpoint_key ORDER BY p.endpoint_key`,
    [filter.account ?? null, filter.account ?? null, filter.querySetId ?? null, filter.querySetId ?? null],
  );
}
