import type { Store } from '../store/sql.js';
import { deliveryId } from './delivery-id.js';
import { findDelivery } from './reads.js';
import {
  type DeliveryKey,
  type DeliveryRow,
  EMAIL_DESTINATION,
  type EnqueueResult,
  toDelivery,
} from './row.js';

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
