import { ReportdError } from './reportd-error.js';

/** Thrown when the database cannot be opened or migrated (unwritable folder, newer schema…). */
export class StoreError extends ReportdError {
  override name = 'StoreError' as const;
  static override readonly code: string = 'ERR_STORE_OPEN';
}
