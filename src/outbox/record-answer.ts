import type { Clock } from '../clock.js';
import { DeliveryRecordError } from '../errors/index.js';
import type { Logger } from '../log.js';
import { staleWrite } from '../queue/fence.js';
import type { Store } from '../store/sql.js';
import { coverLabel } from './digest-rows.js';
import { type Recipient, type RecipientOutcome, settleRecipients, summary } from './recipients.js';
import type { Delivery } from './row.js';

export interface RecordedAnswer {
  /** `lost`: the claim had moved to another worker, so nothing was recorded (logged as stale). */
  result: 'sent' | 'retry' | 'failed' | 'lost';
  error?: string;
  recipients: Recipient[];
}

/**
 * Records what the SMTP server answered, per recipient. By the time this runs the server has spoken,
 * so nothing may be sent again for this attempt whatever the store does: a write lock another process
 * holds past the store's 5 s lock wait, a full disk, a read-only remount are retried with backoff for `retryForMs`
 * (errors classified here, where they arise, never mistaken for SMTP trouble). If the store still
 * cannot take it, a DeliveryRecordError says who the message was accepted for.
 */
export async function recordAnswer(options: {
  store: Store;
  clock: Clock;
  row: Delivery;
  outcomes: readonly RecipientOutcome[];
  /** When deferred recipients are tried again; null when no attempt is left. */
  retryAt: number | null;
  retryForMs: number;
  log: Logger;
}): Promise<RecordedAnswer> {
  const { store, clock, row, outcomes, retryAt, log } = options;
  const limit = clock.now() + options.retryForMs;
  let settled: Awaited<ReturnType<typeof settleRecipients>> | undefined;
  for (let attempt = 1; !settled; attempt++) {
    try {
      settled = await settleRecipients(store, {
        fence: { id: row.id, token: row.token ?? '' },
        now: clock.now(),
        outcomes,
        retryAt,
      });
    } catch (error) {
      const reason = (error as Error).message;
      if (clock.now() >= limit) {
        const accepted = outcomes.filter((o) => o.state === 'accepted').map((o) => o.recipient);
        throw new DeliveryRecordError(
          `the SMTP server answered for report ${row.report} (${coverLabel(row)})` +
            `${accepted.length ? ` and accepted it for ${accepted.join(', ')}` : ''}, but store ${store.location} ` +
            `could not record it: ${reason}; not sent again by this process (a later attempt may resend it ` +
            `with Message-ID ${row.messageId})`,
          { cause: error },
        );
      }
      log.warn(
        { error: reason, attempt },
        'could not record the SMTP answer in the store; trying again (not resending)',
      );
      await clock.sleep(Math.min(5_000, 200 * 2 ** attempt)).catch(() => {});
    }
  }
  const { state, recipients } = settled;
  if (state === 'stale') {
    staleWrite(log, `record the answer (${outcomes.map((o) => `${o.recipient}: ${o.state}`).join(', ')})`);
    return { result: 'lost', recipients };
  }
  const missed = recipients.filter((r) => r.state !== 'accepted').map((r) => `${r.recipient}: ${r.state}`);
  const accepted = recipients.length - missed.length;
  const fields = { messageId: row.messageId, accepted, missed };
  if (state === 'sent') {
    log.info(
      { ...fields, destination: row.destination },
      row.destination === 'email' ? 'report emailed' : 'report delivered',
    );
  } else if (state === 'pending') log.warn(fields, 'some recipients deferred; will retry them');
  else log.error(fields, 'delivery failed');
  return {
    result: state === 'sent' ? 'sent' : state === 'pending' ? 'retry' : 'failed',
    // The same line `history` shows (with each server's reply), so `deliver --pending` says why too.
    error: summary(recipients) ?? undefined,
    recipients,
  };
}
