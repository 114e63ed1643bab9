import type { ClaimedRowFields } from './claim-rows.js';

/**
 * An outbox row (deliveries.ts): its states, the shape the rest of reportd sees (`Delivery`), the
 * table's columns and the one mapping between them.
 */

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
  /** A digest's exact (account, set, run) list as canonical JSON (digest-rows.ts); null for a per-set row. */
  covers: string | null;
}

/** The table's columns; never leaves the store (callers get a `Delivery` from `toDelivery`). */
export interface DeliveryRow {
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
export function toDelivery(row: DeliveryRow): Delivery {
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

export const maybeDelivery = (row: DeliveryRow | undefined) => (row ? toDelivery(row) : undefined);

/** The destination of email rows; every other destination is a channel name. */
export const EMAIL_DESTINATION = 'email';

/**
 * What a row carries: a report (or digest), an alert's firings, or a failure notice (migration 21:
 * `report` is `notice:` + the incident's key, `query_set_id` the incident's id, `run_id` 0 for the
 * opening, 1 for the clearing; see `noticeKey` and `noticeOf` in notices.ts).
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
