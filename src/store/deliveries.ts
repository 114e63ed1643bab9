import { createHash } from 'node:crypto';
import { scrub, scrubOrNull } from '../secrets.js';
import type { Store } from './db.js';

// Error text is scrubbed where it is written: it may quote a server's reply or an exception, and a
// stored secret would outlive a later rotation (reads only know the secrets registered by then).

/**
 * The delivery outbox (migration 2). Every state change is one conditional UPDATE whose WHERE clause
 * states what must still be true (`state`, `claimed_by`, the lease), and the caller checks
 * `changes === 1`: that is what lets two daemons, or a daemon restarted after kill -9, share the
 * table without ever both believing they own a row.
 */

export type DeliveryState = 'pending' | 'rendering' | 'sending' | 'sent' | 'failed';
export const DELIVERY_STATES: readonly DeliveryState[] = [
  'pending',
  'rendering',
  'sending',
  'sent',
  'failed',
];

export interface DeliveryRow {
  id: number;
  report: string;
  /** `email`, or the name of a `channels[]` entry (migration 11): one row per destination. */
  destination: string;
  query_set_id: number;
  run_id: number;
  generation: number;
  account: string | null;
  state: DeliveryState;
  attempts: number;
  last_error: string | null;
  message_id: string;
  claimed_by: string | null;
  lease_until: number | null;
  next_attempt_at: number;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  /** A channel sender's checkpoint within this delivery (Slack: the message already posted). */
  channel_state: string | null;
  /** What the row carries (migration 12): a report, or an alert's message; the worker builds by it. */
  kind?: DeliveryKind;
  /** A digest's exact (account, set, run) list as canonical JSON (digest-deliveries.ts); null for a per-set row. */
  covers: string | null;
}

/** The destination of email rows; every other destination is a channel name. */
export const EMAIL_DESTINATION = 'email';

export type DeliveryKind = 'report' | 'alert';

export interface DeliveryKey {
  report: string;
  /** `email` (the default) or a channel name. */
  destination?: string;
  querySetId: number;
  runId: number;
  account?: string | null;
  /** Default `report`. An alert row's `report` is the alert's name (names never collide in the config). */
  kind?: DeliveryKind;
}

export interface EnqueueResult {
  delivery: DeliveryRow;
  /** False when the (report, set, run) already had a row and `force` was not asked for. */
  created: boolean;
}

/**
 * Adds the row for (report, destination, set, run) unless one exists. With `force`, adds the next generation so the
 * same run is sent again. One IMMEDIATE transaction: two processes enqueueing the same key at once
 * serialise on the write lock, and the UNIQUE key backs that up.
 */
export function enqueueDelivery(
  store: Store,
  key: DeliveryKey,
  now: number,
  options: {
    force?: boolean;
    /** The Message-ID of a generation; by default derived from the key alone (see `defaultMessageId`). */
    messageIdFor?: (generation: number) => string;
  } = {},
): EnqueueResult {
  const { db } = store;
  return db
    .transaction((): EnqueueResult => {
      const latest = findDelivery(store, key);
      if (latest && !options.force) return { delivery: latest, created: false };
      const generation = latest ? latest.generation + 1 : 0;
      // The Message-ID is fixed at enqueue and reused by every attempt, so a resend after a crash in
      // the middle of SMTP carries the same id and receivers can recognise the duplicate. It is derived
      // from what the delivery is (not random, not the row id), so a store rebuilt from scratch sends
      // the same run with the same id again.
      const messageId = (options.messageIdFor ?? ((g: number) => defaultMessageId(key, g)))(generation);
      const info = db
        .prepare(
          `INSERT INTO deliveries (report, destination, query_set_id, run_id, generation, account, message_id,
             next_attempt_at, created_at, updated_at, kind)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          key.report,
          key.destination ?? EMAIL_DESTINATION,
          key.querySetId,
          key.runId,
          generation,
          key.account ?? null,
          messageId,
          now,
          now,
          now,
          key.kind ?? 'report',
        );
      const id = Number(info.lastInsertRowid);
      return { delivery: getDelivery(store, id)!, created: true };
    })
    .immediate();
}

/**
 * `<reportd.<hash>@domain>` from (report, account, set, run, generation) and `extra` (the outbox adds
 * the recipients and the sender): the same delivery always gets the same id, two installations with
 * other senders or recipients get other ids.
 */
export function defaultMessageId(
  key: DeliveryKey,
  generation: number,
  extra: readonly string[] = [],
  domain = 'reportd',
): string {
  const hash = createHash('sha256')
    .update(
      JSON.stringify([key.report, key.account ?? null, key.querySetId, key.runId, generation, ...extra]),
    )
    .digest('hex')
    .slice(0, 32);
  return `<reportd.${hash}@${domain}>`;
}

export function getDelivery(store: Store, id: number): DeliveryRow | undefined {
  return store.db.prepare('SELECT * FROM deliveries WHERE id = ?').get(id) as DeliveryRow | undefined;
}

/** The newest generation for a key (its destination `email` unless said), if any. */
export function findDelivery(store: Store, key: DeliveryKey): DeliveryRow | undefined {
  return store.db
    .prepare(
      `SELECT * FROM deliveries WHERE report = ? AND destination = ? AND query_set_id = ? AND run_id = ?
       ORDER BY generation DESC LIMIT 1`,
    )
    .get(key.report, key.destination ?? EMAIL_DESTINATION, key.querySetId, key.runId) as
    | DeliveryRow
    | undefined;
}

/**
 * Saves a channel sender's checkpoint while this worker still holds the row, so the next attempt
 * resumes after what already reached the provider instead of repeating it.
 */
export function saveChannelState(store: Store, id: number, worker: string, state: string): boolean {
  return (
    store.db
      .prepare(
        `UPDATE deliveries SET channel_state = ? WHERE id = ? AND claimed_by = ? AND state IN ('rendering', 'sending')`,
      )
      .run(state, id, worker).changes === 1
  );
}

export interface ClaimOptions {
  worker: string;
  now: number;
  leaseMs: number;
  /** Rows whose lease ran out this many times are not reclaimed (see `failExhausted`). */
  maxAttempts: number;
}

export interface Claimed {
  delivery: DeliveryRow;
  /** The state the row was taken from: `sending` means an earlier attempt died inside SMTP. */
  recoveredFrom: DeliveryState;
}

/**
 * Claims the next due row: a pending row whose retry time has come, or a row stuck in rendering or
 * sending whose owner's lease ran out (the owner crashed or hung); with `id`, only that row. The
 * UPDATE re-checks those conditions itself, so of two workers racing for a row exactly one sees
 * `changes === 1`.
 */
export function claimNextDelivery(
  store: Store,
  options: ClaimOptions & { id?: number },
): Claimed | undefined {
  const { db } = store;
  const candidates = db
    .prepare(
      `SELECT id, state FROM deliveries
       WHERE (@id IS NULL OR id = @id) AND attempts < @maxAttempts
         AND ((state = 'pending' AND next_attempt_at <= @now)
          OR (state IN ('rendering', 'sending') AND lease_until < @now))
       ORDER BY next_attempt_at, id LIMIT 10`,
    )
    .all({ ...options, id: options.id ?? null }) as { id: number; state: DeliveryState }[];
  const claim = db.prepare(
    `UPDATE deliveries SET state = 'rendering', claimed_by = @worker, lease_until = @now + @leaseMs,
       attempts = attempts + 1, updated_at = @now
     WHERE id = @id AND state = @state AND attempts < @maxAttempts
       AND ((state = 'pending' AND next_attempt_at <= @now)
         OR (state IN ('rendering', 'sending') AND lease_until < @now))`,
  );
  for (const candidate of candidates) {
    // `state = @state` pins the state we read, so `recoveredFrom` is true of the row we won.
    if (claim.run({ ...options, id: candidate.id, state: candidate.state }).changes === 1) {
      return { delivery: getDelivery(store, candidate.id)!, recoveredFrom: candidate.state };
    }
  }
  return undefined;
}

/**
 * Ends at once the lease of rows held by a worker `isGone` says no longer exists (a process of this
 * host that was killed), so they need not wait out their lease. Conditional on the holder and state
 * read, like every other change here: a row re-claimed meanwhile is left alone.
 */
export function expireGoneClaims(store: Store, now: number, isGone: (worker: string) => boolean): number {
  const held = store.db
    .prepare(
      `SELECT id, state, claimed_by FROM deliveries
       WHERE state IN ('rendering', 'sending') AND lease_until >= ? AND claimed_by IS NOT NULL`,
    )
    .all(now) as { id: number; state: DeliveryState; claimed_by: string }[];
  const expire = store.db.prepare(
    'UPDATE deliveries SET lease_until = ? WHERE id = ? AND state = ? AND claimed_by = ?',
  );
  let expired = 0;
  for (const row of held) {
    if (isGone(row.claimed_by)) expired += expire.run(now - 1, row.id, row.state, row.claimed_by).changes;
  }
  return expired;
}

/** A pending row waiting for its retry time becomes due now (`reportd deliver` means "now"). */
export function makeDueNow(store: Store, id: number, now: number): boolean {
  return (
    store.db
      .prepare(`UPDATE deliveries SET next_attempt_at = ?, updated_at = ? WHERE id = ? AND state = 'pending'`)
      .run(now, now, id).changes === 1
  );
}

/**
 * rendering → sending, only if this worker still owns the row. A worker whose lease ran out (and whose
 * row another worker took) stops here instead of sending a second copy.
 */
export function markSending(store: Store, id: number, worker: string, now: number, leaseMs: number): boolean {
  return (
    store.db
      .prepare(
        `UPDATE deliveries SET state = 'sending', lease_until = ?, updated_at = ?
         WHERE id = ? AND state = 'rendering' AND claimed_by = ?`,
      )
      .run(now + leaseMs, now, id, worker).changes === 1
  );
}

/**
 * The heartbeat: pushes this worker's lease forward while it still owns the row in `rendering` or
 * `sending` (each state with its own lease length). False means the row is no longer ours (another
 * worker took it over, or it was finished); the caller stops renewing, and `markSending`'s own fence
 * keeps it from sending. Neither `attempts` nor `updated_at` moves: a renewal is the same attempt
 * going on, not a state change, so it neither uses up attempts nor reorders `history`.
 */
export function renewLease(
  store: Store,
  options: { id: number; worker: string; now: number; leaseMs: number; sendLeaseMs: number },
): boolean {
  return (
    store.db
      .prepare(
        `UPDATE deliveries
         SET lease_until = @now + CASE state WHEN 'sending' THEN @sendLeaseMs ELSE @leaseMs END
         WHERE id = @id AND claimed_by = @worker AND state IN ('rendering', 'sending')`,
      )
      .run(options).changes === 1
  );
}

/**
 * → sent. Deliberately not fenced by owner: the SMTP server accepted the message, so the row is sent
 * whoever holds it now, and a worker that reclaimed it meanwhile fails its own `markSending`.
 */
export function markSent(store: Store, id: number, now: number, note: string | null): boolean {
  return (
    store.db
      .prepare(
        `UPDATE deliveries SET state = 'sent', sent_at = ?, updated_at = ?, last_error = ?, lease_until = NULL
         WHERE id = ? AND state IN ('rendering', 'sending')`,
      )
      .run(now, now, scrubOrNull(note), id).changes === 1
  );
}

/** → pending with a retry time, after a transient failure. */
export function markRetry(
  store: Store,
  id: number,
  worker: string,
  now: number,
  error: string,
  nextAttemptAt: number,
): boolean {
  return (
    store.db
      .prepare(
        `UPDATE deliveries SET state = 'pending', last_error = ?, next_attempt_at = ?, updated_at = ?,
           claimed_by = NULL, lease_until = NULL
         WHERE id = ? AND state IN ('rendering', 'sending') AND claimed_by = ?`,
      )
      .run(scrub(error), nextAttemptAt, now, id, worker).changes === 1
  );
}

/** → failed, for good: a permanent SMTP refusal, a missing report, or attempts used up. */
export function markFailed(store: Store, id: number, worker: string, now: number, error: string): boolean {
  return (
    store.db
      .prepare(
        `UPDATE deliveries SET state = 'failed', last_error = ?, updated_at = ?, lease_until = NULL
         WHERE id = ? AND state IN ('rendering', 'sending') AND claimed_by = ?`,
      )
      .run(scrub(error), now, id, worker).changes === 1
  );
}

/**
 * Rows that used every attempt without finishing (each attempt crashed or hung past its lease) are
 * failed here rather than retried forever; a crash loop must end in a visible failure.
 */
export function failExhausted(store: Store, now: number, maxAttempts: number): number {
  return store.db
    .prepare(
      `UPDATE deliveries SET state = 'failed', updated_at = @now,
         last_error = 'gave up after ' || attempts || ' attempts: ' || COALESCE(last_error, 'the worker stopped or hung each time')
       WHERE attempts >= @maxAttempts AND ((state = 'pending')
          OR (state IN ('rendering', 'sending') AND lease_until < @now))`,
    )
    .run({ now, maxAttempts }).changes;
}

/** Earliest time something becomes claimable (a retry time or a lease end), for the worker's sleep. */
export function nextDeliveryDue(store: Store): number | undefined {
  const row = store.db
    .prepare(
      `SELECT MIN(CASE WHEN state = 'pending' THEN next_attempt_at ELSE lease_until END) AS at
       FROM deliveries WHERE state IN ('pending', 'rendering', 'sending')`,
    )
    .get() as { at: number | null };
  return row.at ?? undefined;
}

export function countDeliveriesByState(store: Store): Record<DeliveryState, number> {
  const counts = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
  const rows = store.db.prepare('SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state').all() as {
    state: DeliveryState;
    n: number;
  }[];
  for (const row of rows) counts[row.state] = row.n;
  return counts;
}

/** Rows per (destination, state), for `/metrics`. */
export function countDeliveriesByDestination(
  store: Store,
): { destination: string; state: DeliveryState; n: number }[] {
  return store.db
    .prepare('SELECT destination, state, COUNT(*) AS n FROM deliveries GROUP BY destination, state')
    .all() as { destination: string; state: DeliveryState; n: number }[];
}

export function listDeliveries(store: Store, limit = 20): DeliveryRow[] {
  return store.db
    .prepare('SELECT * FROM deliveries ORDER BY updated_at DESC, id DESC LIMIT ?')
    .all(limit) as DeliveryRow[];
}
