import { ReportdError } from './reportd-error.js';

/** Thrown by `readCapped` when a body grows past its cap: the read stops there. */
export class BodyTooLargeError extends ReportdError {
  override name = 'BodyTooLargeError' as const;
  static override readonly code: string = 'ERR_API_BODY_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`response larger than ${formatBytes(maxBytes)}`);
  }
}

/** In MB, as `sync.max_payload_mb` is written. */
function formatBytes(bytes: number): string {
  return `${Number((bytes / (1024 * 1024)).toFixed(3))} MB`;
}
