import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import { deliveryId } from '../outbox/delivery-id.js';
import { coversKey } from '../outbox/digest-rows.js';
import { type Delivery, EMAIL_DESTINATION, unsavedDelivery } from '../outbox/row.js';
import type { Store } from '../store/sql.js';
import type { ChannelSender } from './channels/types.js';
import type { EmailContent } from './content.js';
import { previewOnChannel } from './destinations/channel.js';
import { latestRuns } from './due.js';
import type { DeliveryRenderer } from './outbox-options.js';
import { composeForPreview } from './preview.js';

/** What one destination would get for one (set, run). */
export interface DryRunPayload {
  report: string;
  querySetId: number;
  runId: number;
  destination: string;
  type: 'email' | ChannelSender['type'];
  payload: unknown;
}

/**
 * `reportd deliver --dry-run`: the payload each destination of a report would get for the newest
 * complete run of each of its sets, rendered by the same renderer and built by the same senders as
 * a delivery, with the same stable ids, but nothing sent and no outbox row read or written. The
 * email is summarised (headers and attachment names; `--eml` writes the whole message).
 */
export async function dryRunPayloads(options: {
  config: Config;
  store: Store;
  report: Config['reports'][number];
  renderer: DeliveryRenderer;
  senders: ReadonlyMap<string, ChannelSender>;
  clock?: Clock;
  logger?: Logger;
}): Promise<DryRunPayload[]> {
  const { config, store, report, renderer, senders } = options;
  const clock = options.clock ?? systemClock;
  const out: DryRunPayload[] = [];
  const latest = await latestRuns(store, report, config.accounts);
  // A digest-mode report over several sets sends one message covering them all (set and run 0 in
  // the output, as a digest row's set is), so that is what is previewed.
  const digest = report.mode !== 'per_set' && latest.length > 1;
  const items: { querySetId: number; runId: number; account: string | null }[] = digest
    ? [{ querySetId: 0, runId: 0, account: null }]
    : latest;
  for (const run of items) {
    const row = unsavedDelivery(
      {
        report: report.name,
        destination: EMAIL_DESTINATION,
        querySetId: run.querySetId,
        runId: run.runId,
        account: run.account,
        messageId: `<dry-run-${run.querySetId}-${run.runId}@reportd>`,
        covers: digest ? coversKey(latest) : null,
      },
      clock.now(),
    );
    // The composer the outbox would use, with this clock: the same render, subject and headline.
    const message = await composeForPreview(row, { config, store, renderer, clock });
    const content = message.content!;
    const at = { report: report.name, querySetId: run.querySetId, runId: run.runId };
    if (report.email && message.email) {
      const { message: email } = await message.email();
      out.push({
        ...at,
        destination: EMAIL_DESTINATION,
        type: 'email',
        payload: {
          from: email.from,
          to: email.to,
          cc: email.cc,
          bcc: email.bcc,
          subject: email.subject,
          attachments: (email.attachments ?? []).filter((a) => !a.cid).map((a) => a.filename),
        },
      });
    }
    for (const name of report.channels ?? []) {
      const sender = senders.get(name);
      if (!sender) continue;
      const payload = await channelPreview(sender, name, row, content, clock.now());
      out.push({ ...at, destination: name, type: sender.type, payload });
    }
  }
  return out;
}

/**
 * The request(s) a channel would be sent for a delivery row, with the id the outbox would give it (a
 * digest's as Outbox.enqueueDigest makes it): `deliver --dry-run` and the studio show this.
 */
export function channelPreview(
  sender: ChannelSender,
  destination: string,
  row: Pick<Delivery, 'report' | 'querySetId' | 'runId' | 'account' | 'covers'>,
  content: EmailContent,
  at: number,
): Promise<unknown> {
  const key = { ...row, destination };
  const id = row.covers
    ? deliveryId(
        { of: 'digest', report: row.report, covers: row.covers, generation: 0, extra: [destination] },
        { form: 'message-id' },
      )
    : deliveryId({ of: 'channel-run', ...key, generation: 0 }, { form: 'msg' });
  return previewOnChannel(sender, { id, content }, row, at);
}
