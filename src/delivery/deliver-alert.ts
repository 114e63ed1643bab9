import type { AlertContent } from '../alerts/run-alerts.js';
import type { Config } from '../config/schema.js';
import { envelopeRecipients } from '../outbox/envelope.js';
import type { Delivery } from '../outbox/row.js';
import { getFiring } from '../store/alerts.js';
import type { Store } from '../store/sql.js';
import type { ChannelAlert } from './channels/types.js';
import { composeAlertEmail } from './compose/alert-email.js';
import { senderOf } from './compose/email.js';
import type { OutboxOptions } from './outbox-options.js';

/** The outbox's builder for `alert` rows: the stored firing, mailed to the alert's recipients. */
export function alertMessageBuilder(store: Store, config: Config): NonNullable<OutboxOptions['messageFor']> {
  return async (row, date) => {
    const alert = config.alerts.find((a) => a.name === row.report);
    if (!alert) return { error: `alert "${row.report}" is no longer in the config` };
    if (!alert.email) return { error: `alert "${row.report}" no longer has an email section` };
    const content = await storedFiring(store, row);
    if (!content) return { error: `nothing stored for alert "${row.report}" on run ${row.runId}` };
    const message = composeAlertEmail({
      alert,
      content,
      from: senderOf(config),
      messageId: row.messageId,
      date,
      reports: config.reports,
    });
    return {
      message,
      recipients: envelopeRecipients(alert.email),
      attachReport: alert.attach.includes('pdf'),
    };
  };
}

async function storedFiring(store: Store, row: Delivery): Promise<AlertContent | undefined> {
  return (await getFiring(store, {
    alert: row.report,
    account: row.account ?? '',
    querySetId: row.querySetId,
    runId: row.runId,
  })) as AlertContent | undefined;
}

/** The outbox's builder for `alert` rows bound for a channel: the stored firing, for the channel's sender. */
export function channelAlertBuilder(
  store: Store,
  config: Config,
): NonNullable<OutboxOptions['channelAlertFor']> {
  return async (row) => {
    const alert = config.alerts.find((a) => a.name === row.report);
    if (!alert) return { error: `alert "${row.report}" is no longer in the config` };
    if (!alert.channels?.includes(row.destination))
      return { error: `channel "${row.destination}" is no longer in the config of alert "${row.report}"` };
    const content = await storedFiring(store, row);
    if (!content) return { error: `nothing stored for alert "${row.report}" on run ${row.runId}` };
    return toChannelAlert(content);
  };
}

export function toChannelAlert(content: AlertContent): ChannelAlert {
  return {
    alert: content.alert,
    account: content.account,
    brand: content.brand,
    querySet: { id: content.querySetId, name: content.querySet },
    run: content.run,
    previousRun: content.previousRun,
    firings: content.firings,
  };
}
