import { ReportdError } from './reportd-error.js';

/** Thrown when a command is called with arguments that cannot work (unknown set, missing snapshot…). */
export class UsageError extends ReportdError {
  override name = 'UsageError' as const;
  override exitCode = 2;
}
