import { ReportdError } from './reportd-error.js';

/** Thrown when a command is called with arguments that cannot work (unknown set, missing snapshot…). */
export class UsageError extends ReportdError {
  override name = 'UsageError' as const;
  static override readonly code: string = 'ERR_USAGE';
  override exitCode = 2;
}
