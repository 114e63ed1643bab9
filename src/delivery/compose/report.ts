import type { StorageChannelConfig } from '../../config/storage-channels.js';
import { envelopeRecipients } from '../../outbox/envelope.js';
import type { Delivery } from '../../outbox/row.js';
import { EMAIL_DESTINATION } from '../../outbox/row.js';
import { emailLinks } from '../email-links.js';
import type { DeliveryRenderer } from '../outbox-options.js';
import { attachedFiles } from './attached-files.js';
import { composeEmail, type ReportEmailConfig } from './email.js';
import { type ComposeContext, type Composed, type Composer, once } from './message.js';

export interface ReportComposerOptions {
  renderer: DeliveryRenderer;
  /** The storage channels by name: an email's `links_from`. */
  storage?: ReadonlyMap<string, StorageChannelConfig>;
  reports: readonly ReportEmailConfig[];
  from: string;
  templatesDir?: string;
}

/**
 * A report row (one run, or a digest's runs: the renderer reads `covers`): its files are rendered
 * for every destination, its email (templates, subject, headline) only when an email is asked for.
 */
export function reportComposer(options: ReportComposerOptions): Composer {
  return async (row: Delivery, context: ComposeContext): Promise<Composed> => {
    const report = options.reports.find((r) => r.name === row.report);
    const isEmail = row.destination === EMAIL_DESTINATION;
    const gone = !report
      ? `report "${row.report}" is no longer in the config`
      : isEmail && !report.email
        ? `report "${row.report}" no longer has an email section`
        : !isEmail && (!context.hasDestination || !report.channels?.includes(row.destination))
          ? `channel "${row.destination}" is no longer in the config of report "${row.report}"`
          : undefined;
    if (!report || gone) return { unbuildable: gone ?? 'gone' };
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
