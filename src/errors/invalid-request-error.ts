import { ApiError } from './api-error.js';

/** The client refused to send a request the spec forbids (unknown parameter, bad enum value…). */
export class InvalidRequestError extends ApiError {
  override name = 'InvalidRequestError' as const;
  static override readonly code: string = 'ERR_API_INVALID_REQUEST';
}
