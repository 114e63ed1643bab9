import { ReportdError } from './reportd-error.js';

/** Ctrl+C / SIGTERM ended the command before everything was sent; 130 / 143 like a shell. */
export class InterruptedError extends ReportdError {
  override name = 'InterruptedError' as const;
  static override readonly code: string = 'ERR_INTERRUPTED';
  constructor(message: string, signal: unknown) {
    super(message);
    this.exitCode = signal === 'SIGTERM' ? 143 : 130;
  }
}
