import { ApiError } from './api-error.js';

/** -3: the server refused the request as malformed. Not retried: the same request would fail again. */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError' as const;
  static override readonly code: string = 'ERR_API_BAD_REQUEST';
}
