import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Clock } from '../../clock.js';
import type { Delivery } from '../../outbox/row.js';
import type { Store } from '../../store/sql.js';
import type { ChannelAlert, ChannelNotice } from '../channels/types.js';
import type { EmailContent } from '../content.js';
import type { LinkUpload, SentFile } from '../sent-files.js';

/**
 * One message, built once per attempt by the composer of the row's kind and handed to the destination
 * of its channel: the outbox knows neither kind nor channel. Each destination spells its own payload
 * from the part it reads (an email from `email`, a Slack or Teams card from `content`, `alert` or
 * `notice`); strings in it come from the API and SMTP replies and are untrusted everywhere.
 */
export interface DeliveryMessage {
  /** The row's stable id (delivery-id.ts): Message-ID, `webhook-id`, Slack metadata. */
  id: string;
  event: 'report.delivered' | 'alert.fired' | 'incident.opened' | 'incident.cleared';
  /** The report's rendered files and headline (reports and digests). */
  content?: EmailContent;
  /** The firings of an alert, as channels post them. */
  alert?: ChannelAlert;
  /** A failure notice, as channels post it (its `at` is filled in when it is delivered). */
  notice?: Omit<ChannelNotice, 'at'>;
  /**
   * The message as email spells it (subject, text, HTML, attachments, headers) and its envelope
   * recipients. Built on first use and kept, so a row bound for a channel never composes an email.
   */
  email?: () => Promise<{
    message: Mail.Options;
    recipients: string[];
    /** The report files the email carries (attachments or links), for the record of what was sent. */
    files?: SentFile[];
    /** With links: writes the files to the store the links point into, before the email is sent. */
    links?: LinkUpload;
  }>;
  /** How long rendering took, when something was rendered (metrics, and the shutdown check after it). */
  renderMs?: number;
}

/** What a composer answers: the message, or why the row can never be sent, or a render worth retrying. */
export type Composed =
  | { message: DeliveryMessage }
  /** The row's report, alert, channel or incident left: the row fails for good, named in `history`. */
  | { unbuildable: string }
  /** Rendering failed (a Chromium crash, a timeout, shutdown): the outbox retries or releases the row. */
  | { renderFailed: string; renderMs?: number };

export interface ComposeContext {
  store: Store;
  clock: Clock;
  /** Whether the outbox has a destination for `row.destination` (a channel may have left the config). */
  hasDestination: boolean;
  /** Ends a render on shutdown or when the heartbeat gives up the row. */
  signal: AbortSignal;
}

/** Builds the message of one kind of row. Adding a kind means one new composer. */
export type Composer = (row: Delivery, context: ComposeContext) => Promise<Composed>;

/** Runs `build` once, on first call, and hands every caller the same promise. */
export function once<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () => {
    built ??= build();
    return built;
  };
}
