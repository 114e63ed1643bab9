import { senderAddress } from '../../outbox/envelope.js';
import type { DeliveryMessage } from '../compose/message.js';
import { classifySmtpError, recipientOutcomes } from '../smtp-errors.js';
import type { Mailer, SendResult } from './smtp-mailer.js';
import type { Destination } from './types.js';

/**
 * Email over SMTP: one exchange for the recipients still owed the message, each recipient's reply
 * its own outcome (smtp-errors.ts); a 4xx for all is retried with the same Message-ID.
 */
export function emailDestination(mailer: Mailer, from: string): Destination {
  const spelled = async (message: DeliveryMessage) => {
    if (!message.email) throw new Error(`a ${message.event} message without its email`);
    return message.email();
  };
  return {
    recipients: async (message) => (await spelled(message)).recipients,
    async deliver(message, { owed, log, signal }) {
      if (owed.length === 0) return { outcomes: [] };
      const { message: mail } = await spelled(message);
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
      if (outcomes) return { outcomes };
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
