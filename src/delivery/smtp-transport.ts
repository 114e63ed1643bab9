import type { Transport } from 'nodemailer';
import type MailMessage from 'nodemailer/lib/mailer/mail-message.js';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';

/** Where and how to reach the SMTP server, as the config loader unpacked it. */
export interface SmtpConnectionOptions {
  host?: string;
  port: number;
  secure: boolean;
  auth?: { user: string; pass: string };
  connectionTimeout: number;
  greetingTimeout: number;
  socketTimeout: number;
}

/** What a send answers: nodemailer's per-message info (accepted, rejected, the server's reply). */
type SentInfo = SMTPConnection.SentMessageInfo & { envelope: SMTPConnection.Envelope; messageId: string };

/**
 * One message over one SMTP connection, as nodemailer's own SMTP transport sends it (connect, log
 * in where the server offers AUTH, MAIL/RCPT/DATA, close), with one thing it lacks: `signal` ends the
 * exchange where it stands. nodemailer takes no AbortSignal and keeps its connection to itself, so
 * this transport owns the connection (nodemailer's SMTPConnection) while nodemailer still builds the
 * message. Aborted before the end of DATA, the socket is destroyed, dropping what this process had
 * not yet written: a server keeps no message whose DATA never ended. Aborted later, the server may
 * already hold it; only its answer is given up.
 */
export function abortableSmtpTransport(
  options: SmtpConnectionOptions,
  signal?: AbortSignal,
): Transport<SentInfo> {
  return {
    name: 'SMTP',
    version: 'reportd',
    send(mail: MailMessage<SentInfo>, callback) {
      const { auth, ...connectionOptions } = options;
      const connection = new SMTPConnection(connectionOptions);
      let settled = false;
      const finish = (error: Error | null, info?: SentInfo) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', abort);
        if (error) connection._socket?.destroy();
        connection.close();
        callback(error, info as SentInfo);
      };
      const abort = () =>
        finish(
          new Error(`SMTP exchange given up: ${(signal?.reason as Error | undefined)?.message ?? 'aborted'}`),
        );
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      connection.once('error', (error: Error) => finish(error));
      // As nodemailer's transport: a close is only a failure if no answer follows it shortly.
      connection.once('end', () => {
        setTimeout(() => finish(new Error('Unexpected socket close')), 1000).unref();
      });
      connection.connect(() => {
        if (settled) return;
        const envelope = mail.message.getEnvelope();
        const send = () =>
          connection.send(envelope, mail.message.createReadStream(), (error, info) =>
            error ? finish(error) : finish(null, { ...info, envelope, messageId: mail.message.messageId() }),
          );
        // Only where the server offers AUTH, as nodemailer's transport does (set by its EHLO answer).
        if (!auth || !(connection as SMTPConnection & { allowsAuth?: boolean }).allowsAuth) return send();
        connection.login({ credentials: auth }, (error) => (error ? finish(error) : send()));
      });
    },
  };
}
