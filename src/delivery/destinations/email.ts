import { senderAddress } from '../../outbox/envelope.js';
import { scrub } from '../../secrets.js';
import type { DeliveryMessage } from '../compose/message.js';
import type { LinkUpload, OnWritten } from '../sent-files.js';
import { classifySmtpError, recipientOutcomes } from '../smtp-errors.js';
import type { Mailer, SendResult } from './smtp-mailer.js';
import { StorageFault } from './storage/object-store.js';
import type { Destination } from './types.js';

/**
 * Email over SMTP: one exchange for the recipients still owed the message, each recipient's reply
 * its own outcome (smtp-errors.ts); a 4xx for all is retried with the same Message-ID.
 */
export function emailDestination(mailer: Mailer, from: string, onSent?: OnWritten): Destination {
  const spelled = async (message: DeliveryMessage) => {
    if (!message.email) throw new Error(`a ${message.event} message without its email`);
    return message.email();
  };
  return {
    recipients: async (message) => (await spelled(message)).recipients,
    async deliver(message, { row, owed, log, signal }) {
      if (owed.length === 0) return { outcomes: [] };
      const { message: mail, links, files } = await spelled(message);
      if (links) {
        // The links must lead somewhere before anyone can click them: the files go up first, in
        // this same fenced attempt, under the names the links sign.
        const failed = await uploadFault(links, signal);
        if (failed?.kind === 'transient') return { transient: failed.reply };
        if (failed) {
          log.error({ error: failed.reply }, 'delivery failed: the links could not be written');
          return {
            outcomes: owed.map((recipient) => ({ recipient, state: 'refused', reply: failed.reply })),
          };
        }
      }
      let sent: SendResult | undefined;
      let sendError: unknown;
      try {
        // The envelope holds only who is still owed the message; the headers still name everyone.
        // A lost lease closes the connection where it stands: before DATA's end the server keeps nothing.
        sent = await mailer.send({ ...mail, envelope: { from: senderAddress(from), to: owed } }, signal);
      } catch (error) {
        sendError = error;
      }
      const outcomes = recipientOutcomes(owed, sent ?? { error: sendError });
      if (outcomes) {
        const readers = outcomes.filter((o) => o.state === 'accepted').map((o) => o.recipient);
        if (onSent && files?.length && readers.length > 0)
          // The email is out: a record that cannot be written is logged, never a reason to send again.
          await onSent(row, readers, 'email', files).catch((error: unknown) =>
            log.warn(
              { error: scrub((error as Error).message) },
              'the record of the sent files was not written',
            ),
          );
        return { outcomes };
      }
      const failure = classifySmtpError(sendError);
      if (failure.kind === 'transient') return { transient: failure.reason };
      // Refused for good: every recipient of this attempt is told apart by name in `history`.
      log.error({ error: failure.reason }, 'delivery failed: the SMTP server refused it');
      return { outcomes: owed.map((recipient) => ({ recipient, state: 'refused', reply: failure.reason })) };
    },
    async preview(message) {
      return (await spelled(message)).message;
    },
  };
}

/** The links' upload as the outbox's terms: nothing (written), or a one-line fault naming the channel. */
async function uploadFault(
  links: LinkUpload,
  signal: AbortSignal,
): Promise<{ kind: 'permanent' | 'transient'; reply: string } | undefined> {
  try {
    await links.upload(signal);
    return undefined;
  } catch (error) {
    const fault =
      error instanceof StorageFault ? error : new StorageFault('transient', (error as Error).message);
    return { kind: fault.kind, reply: scrub(`links_from channel ${links.channel}: ${fault.message}`) };
  }
}
