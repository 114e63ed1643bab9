import { deliveryId } from '../queue/delivery-id.js';
import type { Fence } from '../queue/index.js';
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
import { type ClaimedRowFields, membership } from './claim-rows.js';
import type { Store } from './sql.js';

// Error text is scrubbed where it is written: it may quote a server's reply or an exception, and a
// stored secret would outlive a later rotation (reads only know the secrets registered by then).

/**
 * The delivery outbox (migration 2). Every state change is one conditional UPDATE whose WHERE clause
 * states what must still be true (`state`, `claimed_by`, the lease), and the caller checks
 * `changes === 1`: that is what lets two daemons, or a daemon restarted after kill -9, share the
 * table without ever both believing they own a row. The claim, its renewal and its release are the
 * queue's leased rows (queue/leased-rows.ts); this file says what they mean for a delivery.
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

export type DeliveryState = 'pending' | 'rendering' | 'sending' | 'sent' | 'failed';
export const DELIVERY_STATES: readonly DeliveryState[] = [
  'pending',
  'rendering',
  'sending',
  'sent',
  'failed',
];

/** One outbox row as the rest of reportd sees it (delivery/, cli/, alerts/); the row shape stays here. */
export interface Delivery extends ClaimedRowFields {
  id: number;
  report: string;
  /** `email`, or the name of a `channels[]` entry (migration 11): one row per destination. */
  destination: string;
  /** 0 for a digest (see `covers`). */
  querySetId: number;
  /** A digest's ordinal in its report when `covers` is set. */
  runId: number;
  generation: number;
  account: string | null;
  state: DeliveryState;
  /** Epoch ms. */
  updatedAt: number;
  /** A channel sender's checkpoint within this delivery (Slack: the message already posted). */
  channelState: string | null;
  /** The fencing token of the current claim (migration 20); every write of its worker names it. */
  token: string | null;
  /** What the row carries (migration 12): a report, or an alert's message; the worker builds by it. */
  kind: DeliveryKind;
  /** A digest's exact (account, set, run) list as canonical JSON (digest-deliveries.ts); null for a per-set row. */
  covers: string | null;
}

/** The table's columns; never leaves this file (callers get a `Delivery` from `toDelivery`). */
interface DeliveryRow {
  id: number;
  report: string;
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
  channel_state: string | null;
  token?: string | null;
  /** NULL-free since migration 12's default; optional for rows read before it. */
  kind?: DeliveryKind | null;
  covers: string | null;
}

/** The one row → domain mapping of the outbox. */
function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: Number(row.id),
    report: row.report,
    destination: row.destination,
    querySetId: Number(row.query_set_id),
    runId: Number(row.run_id),
    generation: Number(row.generation),
    account: row.account,
    state: row.state,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    messageId: row.message_id,
    claimedBy: row.claimed_by,
    leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
    nextAttemptAt: Number(row.next_attempt_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    sentAt: row.sent_at === null ? null : Number(row.sent_at),
    channelState: row.channel_state,
    token: row.token ?? null,
    kind: row.kind ?? 'report',
    covers: row.covers,
  };
}

/**
 * A delivery that is never stored: what `preview` and `deliver --dry-run` hand the renderer so it
 * builds exactly what the outbox would, without a row (id 0, in `rendering`, never attempted).
 */
export function unsavedDelivery(
  fields: Pick<
    Delivery,
    'report' | 'destination' | 'querySetId' | 'runId' | 'account' | 'messageId' | 'covers'
  >,
  now: number,
): Delivery {
  return {
    ...fields,
    id: 0,
    generation: 0,
    state: 'rendering',
    attempts: 0,
    lastError: null,
    claimedBy: null,
    leaseUntil: null,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
    sentAt: null,
    channelState: null,
    token: null,
    kind: 'report',
  };
}

const maybeDelivery = (row: DeliveryRow | undefined) => (row ? toDelivery(row) : undefined);

/** The destination of email rows; every other destination is a channel name. */
export const EMAIL_DESTINATION = 'email';

/**
 * What a row carries: a report (or digest), an alert's firings, or a failure notice (migration 21:
 * `report` is `notice:` + the incident's key, `query_set_id` the incident's id, `run_id` 0 for the
 * opening, 1 for the clearing; see `noticeKey` and `noticeOf` in store/incidents.ts).
 */
export type DeliveryKind = 'report' | 'alert' | 'notice';

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
  delivery: Delivery;
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
    /** The Message-ID of a generation; by default derived from the key alone (delivery-id.ts). */
    messageIdFor?: (generation: number) => string;
  } = {},
): Promise<EnqueueResult> {
  return store.transaction(async (): Promise<EnqueueResult> => {
    const latest = await findDelivery(store, key);
    if (latest && !options.force) return { delivery: latest, created: false };
    const generation = latest ? latest.generation + 1 : 0;
    // The Message-ID is fixed at enqueue and reused by every attempt, so a resend after a crash in
    // the middle of SMTP carries the same id and receivers can recognise the duplicate. It is derived
    // from what the delivery is (not random, not the row id), so a store rebuilt from scratch sends
    // the same run with the same id again.
    const messageId = (
      options.messageIdFor ??
      ((g: number) => deliveryId({ of: 'run', ...key, generation: g }, { form: 'message-id' }))
    )(generation);
    // ON CONFLICT: another process (PostgreSQL does not serialise writers) enqueued the same key
    // between the read and the insert; its row is the one.
    const inserted = await store.get<DeliveryRow>(
      `INSERT INTO deliveries (report, destination, query_set_id, run_id, generation, account, message_id,
         next_attempt_at, created_at, updated_at, kind)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (report, destination, query_set_id, run_id, generation) DO NOTHING
       RETURNING *`,
      [
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
      ],
    );
    if (inserted) return { delivery: toDelivery(inserted), created: true };
    return { delivery: (await findDelivery(store, key))!, created: false };
  });
}

export async function getDelivery(store: Store, id: number): Promise<Delivery | undefined> {
  return maybeDelivery(await store.get<DeliveryRow>('SELECT * FROM deliveries WHERE id = ?', [id]));
}

/** The newest generation for a key (its destination `email` unless said), if any. */
export async function findDelivery(store: Store, key: DeliveryKey): Promise<Delivery | undefined> {
  return maybeDelivery(
    await store.get<DeliveryRow>(
      `SELECT * FROM deliveries WHERE report = ? AND destination = ? AND query_set_id = ? AND run_id = ?
       ORDER BY generation DESC LIMIT 1`,
      [key.report, key.destination ?? EMAIL_DESTINATION, key.querySetId, key.runId],
    ),
  );
}

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

/**
 * One kind of row a worker can build and send: a report's (or alert's) name and one of its
 * destinations, as its config has them. Several daemons with different configs share one outbox;
 * each claims only rows it can finish, so a row of another shard's report is left for that shard
 * instead of failed as "no longer in the config". A row no running config knows stays pending
 * (`reportd status` lists it; see `unclaimedDeliveries`).
 */
export interface ClaimTarget {
  kind: DeliveryKind;
  /** The report's name, or the alert's; ignored for `notice` (a worker takes every notice of its destinations). */
  name: string;
  /** `email` or a channel name. */
  destination: string;
}
export type ClaimScope = readonly ClaimTarget[];

/**
 * The scope as a filter on (kind, report, destination), notices on their destination alone; see
 * `membership`.
 */
function scopeFilter(scope: ClaimScope | undefined, negate = false): { sql: string; params: string[] } {
  if (!scope) return membership(['kind'], undefined, { negate });
  const named = membership(
    ['kind', 'report', 'destination'],
    scope.filter((t) => t.kind !== 'notice').map((t) => [t.kind, t.name, t.destination]),
  );
  const notices = membership(
    ['destination'],
    scope.filter((t) => t.kind === 'notice').map((t) => [t.destination]),
  );
  const sql = `(${named.sql} OR (kind = 'notice' AND ${notices.sql}))`;
  return { sql: negate ? `NOT ${sql}` : sql, params: [...named.params, ...notices.params] };
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

/** A pending row waiting for its retry time becomes due now (`reportd deliver` means "now"). */
export async function makeDueNow(store: Store, id: number, now: number): Promise<boolean> {
  const { changes } = await store.run(
    `UPDATE deliveries SET next_attempt_at = ?, updated_at = ? WHERE id = ? AND state = 'pending'`,
    [now, now, id],
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

/**
 * Earliest time something in `scope` becomes claimable (a retry time or a lease end), for the
 * worker's sleep. Scoped, or a due row only another shard can take would wake this worker in a loop.
 */
export async function nextDeliveryDue(store: Store, scope?: ClaimScope): Promise<number | undefined> {
  const filter = scopeFilter(scope);
  const row = await store.get<{ at: number | null }>(
    `SELECT MIN(CASE WHEN state = 'pending' THEN next_attempt_at ELSE lease_until END) AS at
     FROM deliveries WHERE state IN ('pending', 'rendering', 'sending') AND ${filter.sql}`,
    filter.params,
  );
  return row?.at ?? undefined;
}

export interface UnclaimedGroup {
  kind: DeliveryKind;
  report: string;
  destination: string;
  /** Rows due now that this scope never claims. */
  count: number;
  /** Epoch ms: the longest-waiting row's due time. */
  dueSince: number;
}

/**
 * Due pending rows outside `scope`, per (kind, report, destination): work this config cannot do.
 * On a store shared by shards, another daemon's config may know them; when they stay due long
 * after their time, none running does (`reportd status` prints them).
 */
export async function unclaimedDeliveries(
  store: Store,
  scope: ClaimScope,
  now: number,
): Promise<UnclaimedGroup[]> {
  const filter = scopeFilter(scope, true);
  const rows = await store.all<{
    kind: DeliveryKind;
    report: string;
    destination: string;
    n: number;
    since: number;
  }>(
    `SELECT kind, report, destination, COUNT(*) AS n, MIN(next_attempt_at) AS since FROM deliveries
     WHERE state = 'pending' AND next_attempt_at <= ? AND ${filter.sql}
     GROUP BY kind, report, destination ORDER BY MIN(next_attempt_at), report, destination`,
    [now, ...filter.params],
  );
  return rows.map((r) => ({
    kind: r.kind,
    report: r.report,
    destination: r.destination,
    count: Number(r.n),
    dueSince: Number(r.since),
  }));
}

export async function countDeliveriesByState(store: Store): Promise<Record<DeliveryState, number>> {
  const counts = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
  const rows = await store.all<{ state: DeliveryState; n: number }>(
    'SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state',
  );
  for (const row of rows) counts[row.state] = row.n;
  return counts;
}

/** Rows per (destination, state), for `/metrics`. */
export function countDeliveriesByDestination(
  store: Store,
): Promise<{ destination: string; state: DeliveryState; n: number }[]> {
  return store.all('SELECT destination, state, COUNT(*) AS n FROM deliveries GROUP BY destination, state');
}

/** Every row of `kind` (and of `querySetId` when given), oldest first: notices by incident. */
export async function listDeliveriesOfKind(
  store: Store,
  kind: DeliveryKind,
  querySetId?: number,
): Promise<Delivery[]> {
  const rows = await store.all<DeliveryRow>(
    `SELECT * FROM deliveries WHERE kind = ? AND (CAST(? AS INTEGER) IS NULL OR query_set_id = ?) ORDER BY id`,
    [kind, querySetId ?? null, querySetId ?? null],
  );
  return rows.map(toDelivery);
}

export async function listDeliveries(store: Store, limit = 20): Promise<Delivery[]> {
  const rows = await store.all<DeliveryRow>(
    'SELECT * FROM deliveries ORDER BY updated_at DESC, id DESC LIMIT ?',
    [limit],
  );
  return rows.map(toDelivery);
}
