import type { Fence } from '../queue/fence.js';
import { fencedWrite, releaseLease } from '../queue/leased-rows.js';
import { scrubOrNull } from '../secrets.js';
import type { Store } from '../store/sql.js';
import { DELIVERY_LEASE, deliveryFence } from './deliveries.js';

/**
 * Per-recipient state of a delivery (migration 4). A recipient is settled once the server accepted it
 * (`accepted`) or refused it for good (`refused`); `pending` (never tried) and `deferred` (a 4xx
 * reply) are what the next attempt sends to. The row of `deliveries` is finished when no recipient
 * is left to try.
 */
export type RecipientState = 'pending' | 'accepted' | 'deferred' | 'refused';

/** One recipient of one delivery, as delivery/ and cli/ see it. */
export interface Recipient {
  deliveryId: number;
  /** The address. */
  recipient: string;
  state: RecipientState;
  /** The server's reply (scrubbed), null before any. */
  reply: string | null;
  /** Epoch ms. */
  updatedAt: number;
}

/** The table's columns; never leaves this file. */
interface RecipientRow {
  delivery_id: number;
  recipient: string;
  state: RecipientState;
  reply: string | null;
  updated_at: number;
}

function toRecipient(row: RecipientRow): Recipient {
  return {
    deliveryId: Number(row.delivery_id),
    recipient: row.recipient,
    state: row.state,
    reply: row.reply,
    updatedAt: Number(row.updated_at),
  };
}

export interface RecipientOutcome {
  recipient: string;
  state: Exclude<RecipientState, 'pending'>;
  reply: string | null;
}

const RECIPIENT_COLUMNS = 'delivery_id, recipient, state, reply, updated_at';

export async function listRecipients(store: Store, deliveryId: number): Promise<Recipient[]> {
  const rows = await store.all<RecipientRow>(
    `SELECT ${RECIPIENT_COLUMNS} FROM delivery_recipients WHERE delivery_id = ? ORDER BY rowid`,
    [deliveryId],
  );
  return rows.map(toRecipient);
}

/** The recipients of many deliveries at once (for `history`), keyed by delivery id. */
export async function recipientsOf(
  store: Store,
  deliveryIds: readonly number[],
): Promise<Map<number, Recipient[]>> {
  const byId = new Map<number, Recipient[]>();
  for (const id of deliveryIds) byId.set(id, await listRecipients(store, id));
  return byId;
}

/**
 * Records who the delivery is for. Existing rows are never touched, so a recipient the server
 * accepted stays accepted when a later attempt starts from an edited config; an address added to the
 * config meanwhile joins as pending, one removed is still owed the message it was promised.
 */
export function ensureRecipients(
  store: Store,
  deliveryId: number,
  recipients: readonly string[],
  now: number,
): Promise<void> {
  return store.transaction(async () => {
    for (const recipient of recipients) {
      await store.run(
        `INSERT INTO delivery_recipients (delivery_id, recipient, state, updated_at) VALUES (?, ?, 'pending', ?)
         ON CONFLICT DO NOTHING`,
        [deliveryId, recipient, now],
      );
    }
  });
}

/** The recipients the next attempt sends to: never tried, or deferred by the server. */
export async function unsettledRecipients(store: Store, deliveryId: number): Promise<string[]> {
  const rows = await store.all<{ recipient: string }>(
    `SELECT recipient FROM delivery_recipients WHERE delivery_id = ? AND state IN ('pending', 'deferred') ORDER BY rowid`,
    [deliveryId],
  );
  return rows.map((r) => r.recipient);
}

export interface SettleOptions {
  /** The claim whose worker heard the answer: nothing is written unless it still holds the row. */
  fence: Fence;
  now: number;
  outcomes: readonly RecipientOutcome[];
  /** When deferred recipients are tried again; null when the attempts are used up (the row fails). */
  retryAt: number | null;
}

export type Settled =
  | { state: 'sent' | 'pending' | 'failed'; recipients: Recipient[] }
  /** The claim was no longer this worker's: nothing was written (the new owner records its own). */
  | { state: 'stale'; recipients: Recipient[] };

/**
 * What the server answered, in one transaction: each recipient's outcome, then the row's state from
 * the whole list (nobody left to try → `sent` if anyone got it, else `failed`; someone deferred →
 * `pending` until `retryAt`). Fenced like every write of a worker: the first statement touches the
 * row only under the claim's token (and holds its row lock on PostgreSQL until the commit), so a
 * worker that lost its claim records nothing, neither a recipient's outcome nor the row's state. Its
 * answer is the new owner's to find out (Slack looks; email and webhooks resend with the same id).
 */
export function settleRecipients(store: Store, options: SettleOptions): Promise<Settled> {
  const id = options.fence.id;
  const fence = deliveryFence(options.fence);
  return store.transaction(async (): Promise<Settled> => {
    const held = await fencedWrite(store, DELIVERY_LEASE, fence, [['updated_at', options.now]]);
    if (!held) return { state: 'stale', recipients: await listRecipients(store, id) };
    // An upsert, not an update: the server's answer is the truth about who got the message, so it is
    // recorded even when the recipient's own row is missing (a store that lost the commit of
    // ensureRecipients in a crash); an update would touch nothing and fail the row with no reason.
    for (const o of options.outcomes) {
      await store.run(
        `INSERT INTO delivery_recipients (delivery_id, recipient, state, reply, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (delivery_id, recipient) DO UPDATE
           SET state = excluded.state, reply = excluded.reply, updated_at = excluded.updated_at`,
        [id, o.recipient, o.state, scrubOrNull(o.reply), options.now],
      );
    }
    const recipients = await listRecipients(store, id);
    const open = recipients.filter((r) => r.state === 'pending' || r.state === 'deferred');
    const accepted = recipients.some((r) => r.state === 'accepted');
    const note = summary(recipients);
    if (open.length > 0 && options.retryAt !== null) {
      await releaseLease(store, DELIVERY_LEASE, fence, [
        ['state', 'pending'],
        ['last_error', scrubOrNull(note)],
        ['next_attempt_at', options.retryAt],
        ['updated_at', options.now],
        ['claimed_by', null],
      ]);
      return { state: 'pending', recipients };
    }
    // Someone left without the message and no attempt left is a failure, even if others got it.
    const state = accepted && open.length === 0 ? 'sent' : 'failed';
    await releaseLease(store, DELIVERY_LEASE, fence, [
      ['state', state],
      ['sent_at', state === 'sent' ? options.now : null],
      ['last_error', scrubOrNull(note)],
      ['updated_at', options.now],
    ]);
    return { state, recipients };
  });
}

/** One line naming who did not get the message and why; null when everyone did. */
export function summary(recipients: readonly Recipient[]): string | null {
  const parts: string[] = [];
  const refused = recipients.filter((r) => r.state === 'refused');
  const waiting = recipients.filter((r) => r.state === 'deferred' || r.state === 'pending');
  if (refused.length) parts.push(`refused: ${refused.map(named).join(', ')}`);
  if (waiting.length) parts.push(`not yet delivered: ${waiting.map(named).join(', ')}`);
  return parts.length ? parts.join('; ') : null;
}

const named = (r: Recipient) => (r.reply ? `${r.recipient} (${r.reply})` : r.recipient);
