import { scrubOrNull } from '../secrets.js';
import type { Store } from './db.js';

/**
 * Per-recipient state of a delivery (migration 4). A recipient is settled once the server accepted it
 * (`accepted`) or refused it for good (`refused`); `pending` (never tried) and `deferred` (a 4xx
 * reply) are what the next attempt sends to. The row of `deliveries` is finished when no recipient
 * is left to try.
 */
export type RecipientState = 'pending' | 'accepted' | 'deferred' | 'refused';

export interface RecipientRow {
  delivery_id: number;
  recipient: string;
  state: RecipientState;
  reply: string | null;
  updated_at: number;
}

export interface RecipientOutcome {
  recipient: string;
  state: Exclude<RecipientState, 'pending'>;
  reply: string | null;
}

export function listRecipients(store: Store, deliveryId: number): RecipientRow[] {
  return store.db
    .prepare('SELECT * FROM delivery_recipients WHERE delivery_id = ? ORDER BY rowid')
    .all(deliveryId) as RecipientRow[];
}

/** The recipients of many deliveries at once (for `history`), keyed by delivery id. */
export function recipientsOf(store: Store, deliveryIds: readonly number[]): Map<number, RecipientRow[]> {
  const byId = new Map<number, RecipientRow[]>();
  const select = store.db.prepare('SELECT * FROM delivery_recipients WHERE delivery_id = ? ORDER BY rowid');
  for (const id of deliveryIds) byId.set(id, select.all(id) as RecipientRow[]);
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
) {
  const insert = store.db.prepare(
    `INSERT OR IGNORE INTO delivery_recipients (delivery_id, recipient, state, updated_at) VALUES (?, ?, 'pending', ?)`,
  );
  store.db.transaction(() => {
    for (const recipient of recipients) insert.run(deliveryId, recipient, now);
  })();
}

/** The recipients the next attempt sends to: never tried, or deferred by the server. */
export function unsettledRecipients(store: Store, deliveryId: number): string[] {
  return (
    store.db
      .prepare(
        `SELECT recipient FROM delivery_recipients WHERE delivery_id = ? AND state IN ('pending', 'deferred') ORDER BY rowid`,
      )
      .all(deliveryId) as { recipient: string }[]
  ).map((r) => r.recipient);
}

export interface SettleOptions {
  id: number;
  now: number;
  outcomes: readonly RecipientOutcome[];
  /** When deferred recipients are tried again; null when the attempts are used up (the row fails). */
  retryAt: number | null;
}

export interface Settled {
  state: 'sent' | 'pending' | 'failed';
  recipients: RecipientRow[];
}

/**
 * What the server answered, in one transaction: each recipient's outcome, then the row's state from
 * the whole list (nobody left to try → `sent` if anyone got it, else `failed`; someone deferred →
 * `pending` until `retryAt`). Deliberately not fenced by owner: the server has answered, so this is
 * true whoever holds the row now.
 */
export function settleRecipients(store: Store, options: SettleOptions): Settled {
  const { db } = store;
  return db
    .transaction((): Settled => {
      const update = db.prepare(
        'UPDATE delivery_recipients SET state = ?, reply = ?, updated_at = ? WHERE delivery_id = ? AND recipient = ?',
      );
      for (const o of options.outcomes) {
        update.run(o.state, scrubOrNull(o.reply), options.now, options.id, o.recipient);
      }
      const recipients = listRecipients(store, options.id);
      const open = recipients.filter((r) => r.state === 'pending' || r.state === 'deferred');
      const accepted = recipients.some((r) => r.state === 'accepted');
      const note = summary(recipients);
      let state: Settled['state'];
      if (open.length > 0 && options.retryAt !== null) {
        state = 'pending';
        db.prepare(
          `UPDATE deliveries SET state = 'pending', last_error = ?, next_attempt_at = ?, updated_at = ?,
             claimed_by = NULL, lease_until = NULL
           WHERE id = ? AND state IN ('rendering', 'sending')`,
        ).run(scrubOrNull(note), options.retryAt, options.now, options.id);
      } else {
        // Someone left without the message and no attempt left is a failure, even if others got it.
        state = accepted && open.length === 0 ? 'sent' : 'failed';
        db.prepare(
          `UPDATE deliveries SET state = ?, sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END,
             last_error = ?, updated_at = ?, lease_until = NULL
           WHERE id = ? AND state IN ('rendering', 'sending')`,
        ).run(state, state, options.now, scrubOrNull(note), options.now, options.id);
      }
      return { state, recipients };
    })
    .immediate();
}

/** One line naming who did not get the message and why; null when everyone did. */
export function summary(recipients: readonly RecipientRow[]): string | null {
  const parts: string[] = [];
  const refused = recipients.filter((r) => r.state === 'refused');
  const waiting = recipients.filter((r) => r.state === 'deferred' || r.state === 'pending');
  if (refused.length) parts.push(`refused: ${refused.map(named).join(', ')}`);
  if (waiting.length) parts.push(`not yet delivered: ${waiting.map(named).join(', ')}`);
  return parts.length ? parts.join('; ') : null;
}

const named = (r: RecipientRow) => (r.reply ? `${r.recipient} (${r.reply})` : r.recipient);
