import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { saveChannelState } from '../outbox/deliveries.js';
import type { RecipientOutcome } from '../outbox/recipients.js';
import type { Delivery } from '../outbox/row.js';
import { staleWrite } from '../queue/fence.js';
import { scrub } from '../secrets.js';
import type { Store } from '../store/sql.js';
import type { ChannelDelivery, ChannelResult, ChannelSender } from './channels/types.js';
import type { EmailContent } from './content.js';

/**
 * One attempt of a channel row, after the outbox has rendered and moved the row to `sending`: the
 * sender's answer as the row's single recipient outcome (the destination's name), so channels share
 * the email's per-destination states, `history` lines and retry policy.
 */
export async function channelAttempt(options: {
  store: Store;
  clock: Clock;
  row: Delivery;
  sender: ChannelSender;
  content: EmailContent;
  log: Logger;
  /** Posts something other than the report (an alert); defaults to `sender.send(delivery, content)`. */
  post?: (delivery: ChannelDelivery, signal?: AbortSignal) => Promise<ChannelResult>;
  /** Renews the row's lease, fenced by this worker's token: false when the row is another's now. */
  stillMine?: () => Promise<boolean>;
  /** The lost lease (DeliveryAttempt.signal): a request not yet sent is then not sent. */
  signal?: AbortSignal;
}): Promise<{ outcome: RecipientOutcome; retryAfterMs?: number }> {
  const { store, clock, row, sender, content, log, signal } = options;
  const recipient = row.destination;
  try {
    // Deliberately not given the shutdown signal: a request in flight is finished, not cut, so
    // its answer is recorded and a restart does not send it again. Only a lost lease cuts it.
    const delivery: ChannelDelivery = {
      id: row.messageId,
      event: options.post ? 'alert.fired' : 'report.delivered',
      report: row.report,
      account: row.account,
      at: clock.now(),
      resume: row.channelState,
      // Any earlier attempt may have reached the provider with its answer lost (a crash, a timeout).
      lookFirst: row.attempts > 1,
      since: row.createdAt,
      checkpoint: async (state) => {
        if (!(await saveChannelState(store, { id: row.id, token: row.token ?? '' }, state))) {
          staleWrite(log, 'save the channel checkpoint');
          // The row is another worker's now (this one was paused past its lease): its next steps
          // (Slack's upload) are that worker's to take. Stop here, or the file is uploaded twice; the
          // sender answers with a failure, which the fence keeps out of the row as well.
          throw new Error('the row was claimed by another worker during this attempt');
        }
      },
      confirm: async () => {
        if (options.stillMine && !(await options.stillMine())) {
          staleWrite(log, 'post to the channel');
          throw new Error('the row was claimed by another worker during this attempt');
        }
      },
    };
    const result = await (options.post
      ? options.post(delivery, signal)
      : sender.send(delivery, content, signal));
    const reply = scrub(result.reply);
    return {
      outcome: { recipient, state: result.state, reply },
      ...(result.state === 'deferred' && result.retryAfterMs !== undefined
        ? { retryAfterMs: result.retryAfterMs }
        : {}),
    };
  } catch (error) {
    // A sender bug or an unreadable file: not the provider's answer, so worth another attempt.
    return { outcome: { recipient, state: 'deferred', reply: scrub((error as Error).message) } };
  }
}
