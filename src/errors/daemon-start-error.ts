import { ReportdError } from './reportd-error.js';

/** The daemon could not start (the HTTP port is taken…); one line for the CLI. */
export class DaemonStartError extends ReportdError {
  override name = 'DaemonStartError' as const;
  static override readonly code: string = 'ERR_DAEMON_START';
}
