/**
 * Base of every error reportd throws on purpose. The CLI prints `message` on one line (no stack
 * trace) for these; anything else is a bug and is printed with its stack.
 *
 * Every class has a stable `code` (`ERR_CONFIG_INVALID`), as fastify's errors do: what a script or a
 * log query matches on, while messages may be reworded. It is the class's (`ConfigError.code`) and
 * each instance reads it (`error.code`); test/errors/codes.test.ts fails when a class has none or
 * shares one.
 */
export class ReportdError extends Error {
  override name = 'ReportdError';
  static readonly code: string = 'ERR_REPORTD';
  /** Process exit code the CLI uses when this error ends a command. */
  exitCode = 1;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  /** The class's stable code. */
  get code(): string {
    return (this.constructor as typeof ReportdError).code;
  }
}
