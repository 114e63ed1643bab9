import type { Logger } from '../../log.js';
import type { RecipientOutcome } from '../../outbox/recipients.js';
import type { Delivery } from '../../outbox/row.js';
import type { DeliveryMessage } from '../compose/message.js';

/** One attempt of a claimed row, as a destination sees it (the row is `sending` and this worker's). */
export interface DeliveryAttempt {
  row: Delivery;
  /** Who is still owed the message (those `recipients` named, less any accepted before). */
  owed: string[];
  log: Logger;
  /**
   * Renews the row's lease, fenced by this worker's token; false when another worker holds the row
   * now. A destination that can tell "not posted yet" asks it right before posting (Slack).
   */
  stillMine(): Promise<boolean>;
  /**
   * Aborted when the lease heartbeat learns the row is another worker's now (this one was paused past
   * its lease): the new owner sends, so nothing that has not left the process may leave it. The SMTP
   * connection is closed before the message's end; a channel's request not yet sent is not sent.
   */
  signal: AbortSignal;
}

/**
 * What a destination answers: each recipient's state (accepted / deferred / refused), with the
 * provider's Retry-After floor, or a failure of the whole attempt worth retrying (a connection fault).
 */
export type DestinationAnswer =
  | { outcomes: RecipientOutcome[]; retryAfterMs?: number }
  | { transient: string };

/**
 * A channel type's way to deliver one message: the outbox records the answers, fenced by its token.
 * Adding a channel means one new destination.
 */
export interface Destination {
  /** Who this message goes to: email's envelope recipients, a channel's own name. May compose. */
  recipients(message: DeliveryMessage, row: Delivery): Promise<string[]>;
  /**
   * Delivers to `attempt.owed` and answers per recipient. Never given the shutdown signal: a send in
   * flight is finished, not cut, so its answer is recorded and a restart does not send it again. Only
   * a lost lease (`attempt.signal`) cuts it: its answer could not be recorded anyway.
   */
  deliver(message: DeliveryMessage, attempt: DeliveryAttempt): Promise<DestinationAnswer>;
  /** What `deliver` would send, secrets left out (`deliver --dry-run`, the studio). */
  preview(message: DeliveryMessage, row: Delivery): Promise<unknown>;
}
