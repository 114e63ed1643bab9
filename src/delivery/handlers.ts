import type { Clock } from '../clock.js';
import { type Delivery, EMAIL_DESTINATION } from '../outbox/row.js';
import { alertComposer } from './compose/alert.js';
import { digestComposer } from './compose/digest.js';
import type { Composer } from './compose/message.js';
import { noticeComposer } from './compose/notice.js';
import { reportComposer } from './compose/report.js';
import { channelDestination } from './destinations/channel.js';
import { emailDestination } from './destinations/email.js';
import { storageDestination } from './destinations/storage.js';
import type { Destination } from './destinations/types.js';
import type { OutboxOptions } from './outbox-options.js';

/**
 * The outbox's handler tables: which composer builds a row's message (by kind) and which destination
 * delivers it (by destination name). The queue itself knows neither.
 */

export type ComposerKind = 'report' | 'digest' | 'alert' | 'notice';

/** A row's kind as the composers are keyed: a report row covering several runs is a digest. */
export function composerKind(row: Pick<Delivery, 'kind' | 'covers'>): ComposerKind {
  if (row.kind === 'notice' || row.kind === 'alert') return row.kind;
  return row.covers ? 'digest' : 'report';
}

export function composersFor(
  options: Pick<
    OutboxOptions,
    'renderer' | 'reports' | 'from' | 'templatesDir' | 'themes' | 'messageFor' | 'channelAlertFor' | 'storage'
  >,
): Record<ComposerKind, Composer> {
  const report = {
    renderer: options.renderer,
    ...(options.storage ? { storage: options.storage } : {}),
    reports: options.reports,
    from: options.from,
    templatesDir: options.templatesDir,
    themes: options.themes,
  };
  return {
    report: reportComposer(report),
    digest: digestComposer(report),
    alert: alertComposer(options),
    notice: noticeComposer(options.from),
  };
}

/** `email` (the mailer), one destination per configured message channel and one per storage channel. */
export function destinationsFor(options: OutboxOptions, clock: Clock): Map<string, Destination> {
  const destinations = new Map<string, Destination>([
    [EMAIL_DESTINATION, emailDestination(options.mailer, options.from, options.onFilesWritten)],
  ]);
  for (const [name, sender] of options.channels ?? [])
    destinations.set(name, channelDestination(sender, options.store, clock));
  for (const [name, channel] of options.storage ?? [])
    destinations.set(
      name,
      storageDestination(channel, options.onFilesWritten ? { onWritten: options.onFilesWritten } : {}),
    );
  return destinations;
}
