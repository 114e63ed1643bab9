import { ReportdError } from './reportd-error.js';

/**
 * Thrown inside the sandbox's request handling: the API error the sandbox answers with (`error_code`,
 * `error_message`), as the real service would. Never leaves the sandbox server.
 */
export class SandboxApiFailure extends ReportdError {
  override name = 'SandboxApiFailure' as const;
  static override readonly code: string = 'ERR_SANDBOX_API_FAILURE';
  constructor(
    /** The API's error code: -4, -132, -145, -3, -1. */
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}
