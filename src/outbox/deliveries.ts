import type { Fence } from '../queue/fence.js';
import {
  claimNext,
  expireGoneHolders,
  expression,
  fencedWrite,
  type LeaseFence,
  type LeaseTable,
  leaseDialect,
  releaseLease,
  renewLease as renewLeasedRow,
} from '../queue/leased-rows.js';
import { scrub, scrubOrNull } from '../secrets.js';
import type { Store } from '../store/sql.js';
import { type ClaimScope, scopeFilter } from './claim-scope.js';
import { type Delivery, type DeliveryRow, type DeliveryState, toDelivery } from './row.js';

// Error text is scrubbed where it is written: it may quote a server's reply or an exception, and a
// stored secret would outlive a later rotation (reads only know the secrets registered by then).

/**
 * The delivery outbox (migration 2). Every state change is one conditional UPDATE whose WHERE clause
 * states what must still be true (`state`, `claimed_by`, the lease), and the caller checks
 * `changes === 1`: that is what lets two daemons, or a daemon restarted after kill -9, share the
 * table without ever both believing they own a row. The claim, its renewal and its release are the
 * queue's leased rows (queue/leased-rows.ts); this file says what they mean for a delivery. The row model is row.ts, the
 * claim's scope claim-scope.ts, the enqueue enqueue.ts, the reads reads.ts.
 */

/** A row is held while rendering or sending, by `claimed_by`, fenced by the claim's `token`. */
export const DELIVERY_LEASE: LeaseTable = {
  name: 'deliveries',
  key: ['id'],
  holder: 'claimed_by',
  fence: 'token',
  until: 'lease_until',
  held: "state IN ('rendering', 'sending')",
};

/** A claim of a delivery as the leased rows name it. */
export const deliveryFence = (fence: Fence): LeaseFence => ({ key: [fence.id], token: fence.token });

/**
 * Saves a channel sender's checkpoint while this worker still holds the row, so the next attempt
 * resumes after what already reached the provider instead of repeating it.
 */
export function saveChannelState(store: Store, fence: Fence, state: string): Promise<boolean> {
  return fencedWrite(store, DELIVERY_LEASE, deliveryFence(fence), [['channel_state', state]]);
}

export interface ClaimOptions {
  worker: string;
  now: number;
  leaseMs: number;
  /** Rows whose lease ran out this many times are not reclaimed (see `failExhausted`). */
  maxAttempts: number;
  /** Only rows of these targets (see `ClaimTarget`); every row when absent. */
  scope?: ClaimScope;
}

export interface Claimed {
  delivery: Delivery;
  /** The state the row was taken from: `sending` means an earlier attempt died inside SMTP. */
  recoveredFrom: DeliveryState;
}

/** Rows a worker may take: pending and due, or held by a worker whose lease ran out. */
const CLAIMABLE = `attempts < ? AND ((state = 'pending' AND next_attempt_at <= ?)
  OR (state IN ('rendering', 'sending') AND lease_until < ?))`;

/**
 * Claims the next due row: a pending row whose retry time has come, or a row stuck in rendering or
 * sending whose owner's lease ran out (the owner crashed or hung); with `id`, only that row. The
 * claim (queue/leased-rows.ts) re-checks those conditions in its UPDATE, so of two workers racing
 * for a row exactly one wins it; on PostgreSQL the candidates are read `FOR UPDATE SKIP LOCKED`, so
 * workers of several daemons take different rows instead of queueing on the same one.
 */
export async function claimNextDelivery(
  store: Store,
  options: ClaimOptions & { id?: number },
): Promise<Claimed | undefined> {
  const { worker, now, leaseMs, maxAttempts } = options;
  const claimed = await claimNext<DeliveryRow>(store, DELIVERY_LEASE, {
    holder: worker,
    until: now + leaseMs,
    claimable: expression(CLAIMABLE, maxAttempts, now, now),
    // The scope is checked on the read only: a row's kind, report and destination never change.
    among: scopeFilter(options.scope),
    ...(options.id === undefined ? {} : { key: [options.id] }),
    // `state` is pinned, so `recoveredFrom` is true of the row won.
    pin: ['state'],
    order: 'next_attempt_at, id',
    set: [
      ['state', 'rendering'],
      ['attempts', expression('attempts + 1')],
      ['updated_at', now],
    ],
  });
  if (!claimed) return undefined;
  return { delivery: toDelivery(claimed.row), recoveredFrom: claimed.read.state as DeliveryState };
}

/**
 * Ends at once the lease of rows held by a worker `isGone` says no longer exists (a process of this
 * host that was killed), so they need not wait out their lease.
 */
export function expireGoneClaims(
  store: Store,
  now: number,
  isGone: (worker: string) => boolean,
): Promise<number> {
  return expireGoneHolders(store, DELIVERY_LEASE, now, isGone);
}

/**
 * A pending row waiting for its retry time becomes due now (`reportd deliver` means "now"). A row
 * already due is not written: on PostgreSQL the update would wait for a worker that holds it locked.
 */
export async function makeDueNow(store: Store, id: number, now: number): Promise<boolean> {
  const { changes } = await store.run(
    `UPDATE deliveries SET next_attempt_at = ?, updated_at = ? WHERE id = ? AND state = 'pending' AND next_attempt_at > ?`,
    [now, now, id, now],
  );
  return changes === 1;
}

/**
 * rendering → sending, only under this claim's token. A worker whose lease ran out (and whose row
 * another worker took, with a new token) stops here instead of sending a second copy.
 */
export function markSending(store: Store, fence: Fence, now: number, leaseMs: number): Promise<boolean> {
  return fencedWrite(
    store,
    DELIVERY_LEASE,
    deliveryFence(fence),
    [
      ['state', 'sending'],
      ['lease_until', now + leaseMs],
      ['updated_at', now],
    ],
    "state = 'rendering'",
  );
}

/**
 * The heartbeat: pushes the lease forward while this claim still holds the row in `rendering` or
 * `sending` (each state with its own lease length). False means the row is no longer ours (another
 * worker took it over, or it was finished); the caller stops renewing, and the fence on every later
 * write keeps it from changing anything. Neither `attempts` nor `updated_at` moves: a renewal is the
 * same attempt going on, not a state change, so it neither uses up attempts nor reorders `history`.
 */
export function renewLease(
  store: Store,
  options: Fence & { now: number; leaseMs: number; sendLeaseMs: number },
): Promise<boolean> {
  const at = leaseDialect(store).epochMs;
  return renewLeasedRow(
    store,
    DELIVERY_LEASE,
    deliveryFence(options),
    expression(
      `CASE state WHEN 'sending' THEN ${at} ELSE ${at} END`,
      options.now + options.sendLeaseMs,
      options.now + options.leaseMs,
    ),
  );
}

/** → sent, under this claim's token (`history` and tests; the outbox settles through recipients). */
export function markSent(store: Store, fence: Fence, now: number, note: string | null): Promise<boolean> {
  return releaseLease(store, DELIVERY_LEASE, deliveryFence(fence), [
    ['state', 'sent'],
    ['sent_at', now],
    ['updated_at', now],
    ['last_error', scrubOrNull(note)],
  ]);
}

/** → pending with a retry time, after a transient failure; only under this claim's token. */
export function markRetry(
  store: Store,
  fence: Fence,
  now: number,
  error: string,
  nextAttemptAt: number,
): Promise<boolean> {
  return releaseLease(store, DELIVERY_LEASE, deliveryFence(fence), [
    ['state', 'pending'],
    ['last_error', scrub(error)],
    ['next_attempt_at', nextAttemptAt],
    ['updated_at', now],
    ['claimed_by', null],
  ]);
}

/** → failed, for good: a permanent refusal, a missing report, or attempts used up; fenced. */
export function markFailed(store: Store, fence: Fence, now: number, error: string): Promise<boolean> {
  return releaseLease(store, DELIVERY_LEASE, deliveryFence(fence), [
    ['state', 'failed'],
    ['last_error', scrub(error)],
    ['updated_at', now],
  ]);
}

/**
 * Rows that used every attempt without finishing (each attempt crashed or hung past its lease) are
 * failed here rather than retried forever; a crash loop must end in a visible failure.
 */
export async function failExhausted(
  store: Store,
  now: number,
  maxAttempts: number,
  scope?: ClaimScope,
): Promise<number> {
  // Scoped like the claim: another shard counts its own attempts against its own limit.
  const filter = scopeFilter(scope);
  const { changes } = await store.run(
    `UPDATE deliveries SET state = 'failed', updated_at = ?,
       last_error = 'gave up after ' || CAST(attempts AS TEXT) || ' attempts: ' || COALESCE(last_error, 'the worker stopped or hung each time')
     WHERE attempts >= ? AND ((state = 'pending')
        OR (state IN ('rendering', 'sending') AND lease_until < ?)) AND ${filter.sql}`,
    [now, maxAttempts, now, ...filter.params],
  );
  return changes;
}
