import { ApiError } from './api-error.js';

/** -145 that persisted through every retry. Normally -145 only makes the budget wait out the window. */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError' as const;
  static override readonly code: string = 'ERR_API_RATE_LIMITED';
}
