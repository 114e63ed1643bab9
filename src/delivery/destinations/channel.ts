import type { Clock } from '../../clock.js';
import type { Delivery } from '../../outbox/row.js';
import type { Store } from '../../store/sql.js';
import { channelAttempt } from '../channel-attempt.js';
import type { ChannelSender } from '../channels/types.js';
import type { DeliveryMessage } from '../compose/message.js';
import type { Destination } from './types.js';

/**
 * A configured channel (Slack, Teams, a signed webhook): the channel's single destination is its own
 * name, settled like an email recipient. The provider's payload is spelled by its sender
 * (channels/slack.ts, teams.ts, webhook.ts) from the part of the message it posts.
 */
export function channelDestination(sender: ChannelSender, store: Store, clock: Clock): Destination {
  const post = (message: DeliveryMessage): Parameters<typeof channelAttempt>[0]['post'] => {
    const { alert, notice } = message;
    if (alert) return (delivery, signal) => sender.alert(delivery, alert, signal);
    if (notice)
      return (delivery, signal) =>
        sender.notice({ ...notice, at: clock.now(), confirm: delivery.confirm }, signal);
    return undefined;
  };
  return {
    recipients: async (_message, row) => [row.destination],
    async deliver(message, { row, log, stillMine, signal }) {
      const { outcome, retryAfterMs } = await channelAttempt({
        store,
        clock,
        row,
        sender,
        content: message.content as NonNullable<DeliveryMessage['content']>,
        log,
        stillMine,
        signal,
        ...(post(message) ? { post: post(message) } : {}),
      });
      if (outcome.state === 'refused')
        log.error({ error: outcome.reply }, 'delivery failed: the channel refused it');
      return { outcomes: [outcome], ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    },
    preview: async (message, row) => previewOnChannel(sender, message, row, clock.now()),
  };
}

/**
 * The request(s) a channel's sender would make for a report message, secrets left out: the
 * destination's `preview`, and `deliver --dry-run` and the studio through dry-run.ts.
 */
export function previewOnChannel(
  sender: ChannelSender,
  message: Pick<DeliveryMessage, 'id' | 'content'>,
  row: Pick<Delivery, 'report' | 'account'>,
  at: number,
): Promise<unknown> {
  if (!message.content) return Promise.resolve(undefined);
  return sender.preview(
    { id: message.id, event: 'report.delivered', report: row.report, account: row.account, at },
    message.content,
  );
}
