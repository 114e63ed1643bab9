import { ApiError } from './api-error.js';

/** -4: the key or secret is wrong, the credential disabled or deleted, or the company inactive. Fatal for the account. */
export class NotAuthorizedError extends ApiError {
  override name = 'NotAuthorizedError' as const;
  static override readonly code: string = 'ERR_API_NOT_AUTHORIZED';
}
