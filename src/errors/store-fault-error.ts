import { ReportdError } from './reportd-error.js';

/** Thrown in place of such an error: the CLI prints its one line and exits 1. */
export class StoreFaultError extends ReportdError {
  override name = 'StoreFaultError' as const;
  static override readonly code: string = 'ERR_STORE_FAULT';
}
