import { ApiError, type RequestContext } from './api-error.js';

/** A 2xx payload did not match the endpoint's schema. Carries the raw payload so it can be stored. */
export class ResponseValidationError extends ApiError {
  override name = 'ResponseValidationError' as const;
  static override readonly code: string = 'ERR_API_RESPONSE_INVALID';
  constructor(
    message: string,
    context: RequestContext,
    readonly payload: unknown,
  ) {
    super(message, context);
  }
}
