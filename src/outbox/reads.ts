import type { Store } from '../store/sql.js';
import { type ClaimScope, scopeFilter } from './claim-scope.js';
import {
  DELIVERY_STATES,
  type Delivery,
  type DeliveryKey,
  type DeliveryKind,
  type DeliveryRow,
  type DeliveryState,
  EMAIL_DESTINATION,
  maybeDelivery,
  toDelivery,
} from './row.js';

/**
 * What the outbox holds, read: one row, the next due time (the worker's sleep), and the rows and
 * counts `status`, `history`, `/metrics` and the incidents' notices show.
 */

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

/**
 * Which deliveries `history` lists: one report's, and one reader's — the rows sent to one of
 * `destinations` (a channel's name, a recipient table's `recipient:<id>`) or with `address` among
 * their recipients. Filtered in SQL, so `--limit` counts that reader's rows, not everyone's.
 */
export interface DeliveryFilter {
  report?: string;
  reader?: { destinations: readonly string[]; address?: string };
}

export async function listDeliveries(
  store: Store,
  limit = 20,
  filter: DeliveryFilter = {},
): Promise<Delivery[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.report !== undefined) {
    where.push('report = ?');
    params.push(filter.report);
  }
  if (filter.reader) {
    const { destinations, address } = filter.reader;
    const either = destinations.map(() => 'destination = ?');
    params.push(...destinations);
    if (address !== undefined) {
      either.push('id IN (SELECT delivery_id FROM delivery_recipients WHERE lower(recipient) = ?)');
      params.push(address.toLowerCase());
    }
    where.push(either.length ? `(${either.join(' OR ')})` : '1 = 0');
  }
  const rows = await store.all<DeliveryRow>(
    `SELECT * FROM deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY updated_at DESC, id DESC LIMIT ?`,
    [...params, limit],
  );
  return rows.map(toDelivery);
}

/** A row some worker holds right now (status's cluster view). */
export interface InHand {
  id: number;
  report: string;
  destination: string;
  state: string;
  claimed_by: string;
  lease_until: number;
}

/** The rows in hand at `now`: deliveries and notices (rows of the one queue since migration 21) apart. */
export async function deliveriesInHand(
  store: Store,
  now: number,
): Promise<{ deliveries: InHand[]; notices: InHand[] }> {
  const rows = await store.all<InHand & { kind: string }>(
    `SELECT id, kind, report, destination, state, claimed_by, lease_until FROM deliveries
     WHERE state IN ('rendering', 'sending') AND claimed_by IS NOT NULL AND lease_until > ? ORDER BY id`,
    [now],
  );
  const strip = ({ kind: _kind, ...row }: InHand & { kind: string }): InHand => row;
  return {
    deliveries: rows.filter((r) => r.kind !== 'notice').map(strip),
    notices: rows.filter((r) => r.kind === 'notice').map(strip),
  };
}

/**
 * Rows of the source outbox that a process may be working on right now: a copy taken meanwhile
 * would resend what that process is sending.
 */
export async function rowsInFlight(store: Store): Promise<number> {
  // Failure notices are rows of the same table (migration 21).
  const row = await store.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM deliveries WHERE state IN ('rendering', 'sending')`,
  );
  return Number(row?.n ?? 0);
}
