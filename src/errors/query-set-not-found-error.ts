import { ApiError } from './api-error.js';

/** -132: the query set does not exist or is outside the company scope. The set is retired. */
export class QuerySetNotFoundError extends ApiError {
  override name = 'QuerySetNotFoundError' as const;
  static override readonly code: string = 'ERR_API_QUERY_SET_NOT_FOUND';
}
