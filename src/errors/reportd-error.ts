/**
 * Base of every error reportd throws on purpose. The CLI prints `message` on one line (no stack
 * trace) for these; anything else is a bug and is printed with its stack.
 */
export class ReportdError extends Error {
  override name = 'ReportdError';
  /** Process exit code the CLI uses when this error ends a command. */
  exitCode = 1;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
