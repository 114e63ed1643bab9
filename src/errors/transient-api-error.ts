import { ApiError } from './api-error.js';

/** A network fault, timeout, non-JSON body or unknown error code that persisted through every retry. */
export class TransientApiError extends ApiError {
  override name = 'TransientApiError' as const;
  static override readonly code: string = 'ERR_API_TRANSIENT';
}
