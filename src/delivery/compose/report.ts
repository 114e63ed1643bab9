import type { RecipientRow } from '../../config/recipient-fields.js';
import { isRecipientDestination, recipientOf } from '../../config/recipient-names.js';
import type { StorageChannelConfig } from '../../config/storage-channels.js';
import { envelopeRecipients } from '../../outbox/envelope.js';
import type { Delivery } from '../../outbox/row.js';
import { EMAIL_DESTINATION } from '../../outbox/row.js';
import type { ThemeConfig } from '../../report/theme/theme.js';
import { emailLinks } from '../email-links.js';
import type { DeliveryRenderer } from '../outbox-options.js';
import { readerReport } from '../recipients.js';
import { attachedFiles } from './attached-files.js';
import { composeEmail, type ReportEmailConfig } from './email.js';
import { type ComposeContext, type Composed, type Composer, once } from './message.js';

export interface ReportComposerOptions {
  renderer: DeliveryRenderer;
  /** The storage channels by name: an email's `links_from`. */
  storage?: ReadonlyMap<string, StorageChannelConfig>;
  reports: readonly ReportEmailConfig[];
  /** The top-level `themes:` that recipient rows name. */
  themes?: Readonly<Record<string, ThemeConfig>>;
  from: string;
  templatesDir?: string;
}

/**
 * A report row (one run, or a digest's runs: the renderer reads `covers`): its files are rendered
 * for every destination, its email (templates, subject, headline) only when an email is asked for.
 */
export function reportComposer(options: ReportComposerOptions): Composer {
  return async (row: Delivery, context: ComposeContext): Promise<Composed> => {
    const found = reportOfRow(options, row);
    if ('gone' in found) return { unbuildable: found.gone };
    const { report, channel } = found;
    const isEmail = channel === EMAIL_DESTINATION;
    const gone =
      isEmail && !report.email
        ? `report "${row.report}" no longer has an email section`
        : !isEmail && (!context.hasDestination || !report.channels?.includes(channel))
          ? `channel "${channel}" is no longer in the config of report "${row.report}"`
          : undefined;
    if (gone) return { unbuildable: gone };
    const started = context.clock.now();
    try {
      const content = await options.renderer.render(row, context.signal);
      const renderMs = context.clock.now() - started;
      const email = report.email;
      return {
        message: {
          id: row.messageId,
          event: 'report.delivered',
          content,
          renderMs,
          ...(email
            ? {
                email: once(async () => {
                  const now = context.clock.now();
                  const links = await emailLinks({
                    report,
                    content,
                    row,
                    storage: options.storage ?? new Map(),
                    now,
                  });
                  const message = await composeEmail({
                    from: options.from,
                    report,
                    content,
                    messageId: row.messageId,
                    templatesDir: options.templatesDir,
                    ...(found.recipient ? { recipient: { name: found.recipient.name ?? '' } } : {}),
                    date: new Date(now),
                    ...(links ? { links: links.view } : {}),
                  });
                  return {
                    message,
                    recipients: envelopeRecipients(email),
                    files: links ? links.files : await attachedFiles(message),
                    ...(links ? { links } : {}),
                  };
                }),
              }
            : {}),
        },
      };
    } catch (error) {
      return { renderFailed: (error as Error).message, renderMs: context.clock.now() - started };
    }
  };
}

/**
 * The report a row is built from, and the channel it goes by: the config's report, or for a row of a
 * recipient table that report as its reader gets it (recipients.ts). A reader who left the table is
 * never sent to again: the row fails, named in `history`.
 */
function reportOfRow(
  options: ReportComposerOptions,
  row: Delivery,
): { report: ReportEmailConfig; channel: string; recipient?: RecipientRow } | { gone: string } {
  const report = options.reports.find((r) => r.name === row.report);
  if (!report) return { gone: `report "${row.report}" is no longer in the config` };
  if (!isRecipientDestination(row.destination)) return { report, channel: row.destination };
  const recipient = recipientOf(report, row.destination);
  if (!recipient) return { gone: `this reader is no longer in the recipients of report "${row.report}"` };
  return {
    report: readerReport(report, recipient, options.themes ?? {}),
    channel: recipient.channel ?? EMAIL_DESTINATION,
    recipient,
  };
}
