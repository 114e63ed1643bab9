import { ReportdError } from './reportd-error.js';

/**
 * A request the spec forbids, found by the sandbox's own checks (sandbox/validate.ts): answered with
 * -3, as the real service would. Never leaves the sandbox server.
 */
export class SandboxBadRequest extends ReportdError {
  override name = 'SandboxBadRequest' as const;
  static override readonly code: string = 'ERR_SANDBOX_BAD_REQUEST';
  constructor(detail: string) {
    super(`Bad request: ${detail}`);
  }
}
