import { readFileSync } from 'node:fs';
import nodemailer, { type Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { registerSecret } from '../../secrets.js';
import { abortableSmtpTransport, type SmtpConnectionOptions } from '../smtp-transport.js';

/** The mail transport behind the email destination (destinations/email.ts): SMTP, or a test's. */

/** `smtp:` in the config: a URL, or host/port/secure/user/password. */
export interface SmtpSettings {
  url?: string;
  host?: string;
  port?: number;
  secure?: boolean;
  user?: string;
  password?: string;
  password_file?: string;
  from: string;
}

export interface SendResult {
  accepted: string[];
  rejected: string[];
  response: string;
  /** The server's reply to each rejected recipient (its RCPT TO answer), when the transport knows it. */
  refusals?: SmtpRefusal[];
}

export interface SmtpRefusal {
  recipient: string;
  /** The reply code: 4xx may pass later (deferred), 5xx will not (refused). */
  code?: number;
  reply: string;
}

/** Nodemailer's per-recipient errors (`rejectedErrors`, on the result or on an all-rejected error). */
export function refusalsOf(errors: unknown): SmtpRefusal[] {
  if (!Array.isArray(errors)) return [];
  return errors.map(
    (e: { recipient?: unknown; responseCode?: unknown; response?: unknown; message?: unknown }) => ({
      recipient: String(e.recipient ?? ''),
      code: typeof e.responseCode === 'number' ? e.responseCode : undefined,
      reply: String(e.response ?? e.message ?? ''),
    }),
  );
}

/** The mail transport behind a small interface: SMTP in production, anything nodemailer takes in tests. */
export interface Mailer {
  /**
   * Sends one message. `signal` (the outbox's lost lease) gives the exchange up where it stands: the
   * SMTP mailer closes its connection, so a message whose DATA had not ended is not delivered.
   */
  send(message: Mail.Options, signal?: AbortSignal): Promise<SendResult>;
  close(): void;
}

/**
 * A mailer over any nodemailer transport (tests hand in stream or SMTP transports). It can only
 * honour `signal` before the exchange starts; createSmtpMailer's transport also cuts one under way.
 */
export function mailerFromTransport(transporter: Transporter): Mailer {
  return {
    async send(message, signal) {
      signal?.throwIfAborted();
      return sendResultOf(await transporter.sendMail(message));
    },
    close: () => transporter.close(),
  };
}

/** nodemailer's answer (accepted, rejected, per-recipient errors) in the outbox's terms. */
function sendResultOf(sent: unknown): SendResult {
  const info = sent as Partial<SendResult> & {
    accepted?: unknown[];
    rejected?: unknown[];
    rejectedErrors?: unknown;
  };
  return {
    accepted: (info.accepted ?? []).map(String),
    rejected: (info.rejected ?? []).map(String),
    response: String(info.response ?? ''),
    refusals: refusalsOf(info.rejectedErrors),
  };
}

/**
 * An SMTP mailer from the config. The outbox's heartbeat keeps the row claimed during a slow exchange;
 * the timeouts make a hung server fail the attempt (and retry it) instead of holding the row until
 * the outbox's hold cap.
 */
export function createSmtpMailer(smtp: SmtpSettings): Mailer {
  let password = smtp.password;
  if (password === undefined && smtp.password_file)
    password = readFileSync(smtp.password_file, 'utf8').trim();
  registerSecret(password);
  // Always the fields the config loader unpacked (from `url` too), never the raw URL: nodemailer
  // would parse it again with other rules than the ones `reportd check` validated it with, and a
  // malformed percent-escape would surface as a crash at send time instead of a config error.
  const options: SmtpConnectionOptions = {
    host: smtp.host,
    port: smtp.port ?? (smtp.secure ? 465 : 587),
    secure: smtp.secure ?? false,
    ...(smtp.user ? { auth: { user: smtp.user, pass: password ?? '' } } : {}),
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  };
  return {
    // One connection per message, as nodemailer's SMTP transport does; the transport is made per
    // send so that this send's signal can close this send's connection.
    send: async (message, signal) =>
      sendResultOf(
        await nodemailer.createTransport(abortableSmtpTransport(options, signal)).sendMail(message),
      ),
    close: () => {},
  };
}
