import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Clock } from '../clock.js';
import type { StorageChannelConfig } from '../config/storage-channels.js';
import type { Logger } from '../log.js';
import type { Destined } from '../outbox/claim-scope.js';
import type { Recipient } from '../outbox/recipients.js';
import type { Delivery } from '../outbox/row.js';
import type { ThemeConfig } from '../report/theme/theme.js';
import type { Store } from '../store/sql.js';
import type { ChannelAlert, ChannelSender } from './channels/types.js';
import type { ReportEmailConfig } from './compose/email.js';
import type { EmailContent } from './content.js';
import type { Mailer } from './destinations/smtp-mailer.js';
import type { OnWritten } from './sent-files.js';

/** What the outbox (outbox.ts) is built from and what it tells about each attempt. */

export interface DeliveryRenderer {
  /** Renders the report files for the delivery's (query set, run) and gathers the email's headline. */
  render(delivery: Delivery, signal?: AbortSignal): Promise<EmailContent>;
}

export interface OutboxOptions {
  store: Store;
  renderer: DeliveryRenderer;
  mailer: Mailer;
  /** The configured channels' senders by name (`channels[]`); rows bound elsewhere are not claimed. */
  channels?: ReadonlyMap<string, ChannelSender>;
  /** The configured storage channels (S3, SFTP, folder) by name: destinations/storage.ts writes their files. */
  storage?: ReadonlyMap<string, StorageChannelConfig>;
  /** Told about the files each storage delivery holds once written (the record of what was sent). */
  onFilesWritten?: OnWritten;
  from: string;
  reports: readonly ReportEmailConfig[];
  /** The config's alerts: with the reports and channels they make the claim scope (claim-scope.ts). */
  alerts?: readonly Destined[];
  templatesDir?: string;
  /** The top-level `themes:` that recipient rows name. */
  themes?: Readonly<Record<string, ThemeConfig>>;
  clock?: Clock;
  logger?: Logger;
  /** Names this worker in `claimed_by`; unique per process by default. */
  worker?: string;
  /**
   * Reports whose rows wait for now (asked before each claim): those live daemons define differently
   * (daemon/definition-watch.ts). None by default.
   */
  held?: () => Promise<ReadonlySet<string>>;
  /**
   * How long a claim holds without a heartbeat while rendering (ms, default 90 s). The worker renews it
   * every third of that, so it only needs to outlast a few missed beats, not the render; it is how long
   * a crashed worker's row waits before another worker takes it.
   */
  leaseMs?: number;
  /** The same while sending (ms, default `leaseMs`); renewed the same way during the SMTP exchange. */
  sendLeaseMs?: number;
  /**
   * Longest one attempt keeps renewing (ms, default 30 min, far above the render and SMTP timeouts).
   * Past it the lease is left to run out, so an attempt that hangs with a live event loop ends and is
   * counted like a crash instead of holding the row forever.
   */
  maxHoldMs?: number;
  /** Attempts per delivery, crashes included (default 8). */
  maxAttempts?: number;
  /** Retry delay after attempt n: min(cap, base·2^(n-1)); defaults 30 s and 30 min. */
  backoff?: { baseMs: number; capMs: number };
  /**
   * How long recording the server's answer keeps being retried (ms, default 2 min): once the server
   * accepted, a busy lock or a full disk is waited out, never answered by sending again.
   */
  recordRetryMs?: number;
  /**
   * Builds the message of rows whose `kind` is not `report` (alerts): the message and its envelope
   * recipients, or why it cannot be built (the row then fails, named in `history`).
   */
  messageFor?: (
    row: Delivery,
    date: Date,
  ) => Promise<{ message: Mail.Options; recipients: string[]; attachReport?: boolean } | { error: string }>;
  /**
   * The destinations whose failure notices this worker sends (`email` when it has a real mailer, its
   * channels' names); none when absent. A notice for a destination it lacks is left for one that has it.
   */
  noticeDestinations?: readonly string[];
  /** The alert of an `alert` row bound for a channel (its destination), or why it cannot be built. */
  channelAlertFor?: (row: Delivery) => Promise<ChannelAlert | { error: string }>;
  /** Told about every finished attempt (metrics). */
  onOutcome?: (outcome: DeliveryOutcome) => void;
}

export interface DeliveryOutcome {
  id: number;
  report: string;
  /** `email` or the channel's name. */
  destination?: string;
  result: 'sent' | 'retry' | 'failed' | 'lost' | 'released';
  error?: string;
  renderMs?: number;
  /** Each recipient's state after this attempt (absent when nothing was sent). */
  recipients?: Recipient[];
}

/** Short, because the heartbeat renews it: about how long a crashed worker's row waits to be taken over. */
export const DEFAULT_LEASE_MS = 90_000;
export const DEFAULT_MAX_HOLD_MS = 30 * 60_000;

/**
 * The hold cap for a configured render timeout: the default, or more when renders may take long
 * (a launch, the PDF render and the workbook all happen within one attempt).
 */
export function maxHoldFor(renderTimeoutMs: number): number {
  return Math.max(DEFAULT_MAX_HOLD_MS, 3 * renderTimeoutMs);
}
