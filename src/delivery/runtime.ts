import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { isStorageChannel, type StorageChannelConfig } from '../config/storage-channels.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/sql.js';
import { channelSenders } from './channels/index.js';
import type { ChannelSender } from './channels/types.js';
import { senderOf } from './compose/email.js';
import { alertMessageBuilder, channelAlertBuilder } from './deliver-alert.js';
import type { Mailer } from './destinations/smtp-mailer.js';
import { fileRecorder } from './file-records.js';
import { type DeliveryRenderer, maxHoldFor, type OutboxOptions } from './outbox-options.js';
import { Outbox } from './outbox-worker.js';

/**
 * The one way to build the delivery runtime (the outbox, its claim scope, its message builders) from
 * a config: the daemon, `reportd deliver`, `deliver --pending` and `reportd sync` all come through
 * here, so they claim, compose, retry and name messages alike. What differs is only what the
 * caller has: a mailer (else email rows and email notices are not this process's to send), a
 * renderer (else it only queues, as `reportd sync` does).
 */
export interface RuntimeParts {
  store: Store;
  logger: Logger;
  clock?: Clock;
  /** A real mailer; without one, email is left for a process that has it. */
  mailer?: Mailer;
  /** Without one the outbox only queues (Message-IDs are fixed at enqueue): sending is refused. */
  renderer?: DeliveryRenderer;
  /** Default: the senders of `config.channels`. */
  channels?: ReadonlyMap<string, ChannelSender>;
  /** Names this process in `claimed_by` (the daemon's instance id); unique per process by default. */
  worker?: string;
  /** Tuning and hooks the daemon and tests add (leases, backoff, metrics). */
  tuning?: Partial<
    Pick<
      OutboxOptions,
      'leaseMs' | 'sendLeaseMs' | 'maxHoldMs' | 'maxAttempts' | 'backoff' | 'onOutcome' | 'worker' | 'held'
    >
  >;
}

export function createOutbox(config: Config, parts: RuntimeParts): Outbox {
  const { store, mailer } = parts;
  const channels = parts.channels ?? channelSenders(config.channels);
  const refuse = (what: string) => () =>
    Promise.reject(
      new Error(`${what}: this process only queues; \`reportd deliver --pending\` or the daemon sends`),
    );
  return new Outbox({
    store,
    ...composerParts(config, store, parts.renderer ?? { render: refuse('render') }),
    mailer: mailer ?? { send: refuse('no smtp configured'), close() {} },
    alerts: config.alerts,
    channels,
    onFilesWritten: fileRecorder(store, config.delivery.keep_records, parts.clock),
    // Notices go to every destination this process can reach; email only with a real mailer.
    noticeDestinations: parts.renderer ? [...(mailer ? ['email'] : []), ...channels.keys()] : [],
    ...(parts.clock ? { clock: parts.clock } : {}),
    logger: parts.logger,
    leaseMs: config.delivery.lease_seconds * 1000,
    maxHoldMs: maxHoldFor(config.chromium.render_timeout_seconds * 1000),
    ...(parts.worker ? { worker: parts.worker } : {}),
    ...parts.tuning,
  });
}

/** What the composers are built from (handlers.ts): the outbox's, and every preview's (preview.ts). */
export type ComposerParts = Pick<
  OutboxOptions,
  'renderer' | 'reports' | 'from' | 'templatesDir' | 'themes' | 'messageFor' | 'channelAlertFor' | 'storage'
>;

/**
 * The composers' inputs from a config: one function, so a preview (`deliver --eml`, `--dry-run`, the
 * studio, the demo) and a delivery build the same message from the same row and clock.
 */
export function composerParts(config: Config, store: Store, renderer: DeliveryRenderer): ComposerParts {
  return {
    renderer,
    reports: config.reports,
    from: senderOf(config),
    templatesDir: config.templates.dir,
    themes: config.themes,
    messageFor: alertMessageBuilder(store, config),
    channelAlertFor: channelAlertBuilder(store, config),
    // Storage channels are destinations, and the store an email's links point into (links_from).
    storage: new Map(
      config.channels.filter(isStorageChannel).map((c): [string, StorageChannelConfig] => [c.name, c]),
    ),
  };
}
