import { ReportdError } from './reportd-error.js';

/** Thrown when no Chromium can be found, or a configured path is not an executable. */
export class ChromiumNotFoundError extends ReportdError {
  override name = 'ChromiumNotFoundError' as const;
  static override readonly code: string = 'ERR_CHROMIUM_NOT_FOUND';
}
