import { ReportdError } from './reportd-error.js';

/** A delivery this command could not complete; the row stays for the daemon to retry when transient. */
export class DeliveryFailedError extends ReportdError {
  override name = 'DeliveryFailedError' as const;
  static override readonly code: string = 'ERR_DELIVERY_FAILED';
}
