import type { Config } from '../config/schema.js';
import { envelopeRecipients } from '../delivery/envelope.js';
import type { OutboxOptions } from '../delivery/outbox.js';
import { getFiring } from '../store/alerts.js';
import type { Store } from '../store/db.js';
import { composeAlertEmail } from './email.js';
import type { AlertContent } from './run-alerts.js';

/** The outbox's builder for `alert` rows: the stored firing, mailed to the alert's recipients. */
export function alertMessageBuilder(store: Store, config: Config): NonNullable<OutboxOptions['messageFor']> {
  return (row, date) => {
    const alert = config.alerts.find((a) => a.name === row.report);
    if (!alert) return { error: `alert "${row.report}" is no longer in the config` };
    const content = getFiring(store, {
      alert: row.report,
      account: row.account ?? '',
      querySetId: row.query_set_id,
      runId: row.run_id,
    }) as AlertContent | undefined;
    if (!content) return { error: `nothing stored for alert "${row.report}" on run ${row.run_id}` };
    const message = composeAlertEmail({
      alert,
      content,
      from: config.smtp?.from ?? 'reportd',
      messageId: row.message_id,
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
