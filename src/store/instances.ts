import type { Store } from './sql.js';

/**
 * The daemons that share the store (table instances, migration 016) and what each holds: the slots
 * it claimed (job_slots), the accounts it syncs (account_leases, by host and pid: a lease holder is
 * per pass), and the deliveries and notices it is working on (`claimed_by` = its id).
 */

/** How often the row is touched (ms); readers call an instance gone after `GONE_AFTER_BEATS` missed. */
export const HEARTBEAT_MS = 15_000;
export const GONE_AFTER_BEATS = 3;

/** Live = heard from within a few heartbeats and not stopped. */
export function instanceLive(
  row: { heartbeat_at: number; stopped_at: number | null },
  now: number,
  heartbeatMs = HEARTBEAT_MS,
): boolean {
  return row.stopped_at === null && now - row.heartbeat_at <= GONE_AFTER_BEATS * heartbeatMs;
}

export interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  version: string;
  roles: string;
  started_at: number;
  heartbeat_at: number;
  stopped_at: number | null;
  /** Host clock minus the database's, ms, as of the last heartbeat (store/db-clock.ts); null on SQLite. */
  clock_skew_ms: number | null;
}

export async function registerInstance(
  store: Store,
  row: Omit<InstanceRow, 'heartbeat_at' | 'stopped_at' | 'clock_skew_ms'>,
  clockSkewMs: number | null = null,
): Promise<void> {
  await store.run(
    `INSERT INTO instances (id, host, pid, version, roles, started_at, heartbeat_at, clock_skew_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [row.id, row.host, row.pid, row.version, row.roles, row.started_at, row.started_at, clockSkewMs],
  );
}

/** False when the row is gone (pruned by a peer after a very long stall): the caller registers again. */
export async function heartbeatInstance(
  store: Store,
  id: string,
  at: number,
  clockSkewMs: number | null = null,
): Promise<boolean> {
  const { changes } = await store.run(
    'UPDATE instances SET heartbeat_at = ?, clock_skew_ms = ? WHERE id = ?',
    [at, clockSkewMs, id],
  );
  return changes === 1;
}

export async function markInstanceStopped(store: Store, id: string, at: number): Promise<void> {
  await store.run('UPDATE instances SET stopped_at = ?, heartbeat_at = ? WHERE id = ?', [at, at, id]);
}

/** Instances heard from since `since` (stopped ones too), newest start first. */
export function listInstances(store: Store, since: number): Promise<InstanceRow[]> {
  return store.all<InstanceRow>(
    `SELECT id, host, pid, version, roles, started_at, heartbeat_at, stopped_at, clock_skew_ms FROM instances
     WHERE heartbeat_at >= ? ORDER BY started_at DESC, id`,
    [since],
  );
}

/** Rows silent since `before` go, so the table holds recent instances only. */
export async function pruneInstances(store: Store, before: number): Promise<number> {
  const { changes } = await store.run('DELETE FROM instances WHERE heartbeat_at < ?', [before]);
  return changes;
}

/** Accounts being synced at `now` (the outbox's rows in hand are outbox/reads.ts `deliveriesInHand`). */
export function heldAccountLeases(
  store: Store,
  now: number,
): Promise<{ account: string; host: string; pid: number; expires_at: number }[]> {
  return store.all(
    'SELECT account, host, pid, expires_at FROM account_leases WHERE expires_at > ? ORDER BY account',
    [now],
  );
}
