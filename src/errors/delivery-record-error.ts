import { ReportdError } from './reportd-error.js';

/**
 * Thrown when the SMTP server answered (accepted some recipients, deferred or refused others) but the
 * store could not record it within the outbox's record window (a lock held by another process, a full
 * disk, a read-only file). Nothing is sent again by the process that throws it; the message says what
 * was accepted and that a later attempt may resend it with the same Message-ID.
 */
export class DeliveryRecordError extends ReportdError {
  override name = 'DeliveryRecordError' as const;
  static override readonly code: string = 'ERR_DELIVERY_NOT_RECORDED';
}
