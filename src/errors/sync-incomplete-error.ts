import { ReportdError } from './reportd-error.js';

/** A pass that did not store everything due; the CLI prints the message and exits 1. */
export class SyncIncompleteError extends ReportdError {
  override name = 'SyncIncompleteError' as const;
  static override readonly code: string = 'ERR_SYNC_INCOMPLETE';
}
