import { ReportdError } from './reportd-error.js';

/** What the caller needs to know about the request that failed. The secret is never part of it. */
export interface RequestContext {
  /** `GET /presence/sets/101/gross?end_run_id=7` relative to the base URL. */
  request: string;
  endpoint?: string;
  querySetId?: number;
}

export class ApiError extends ReportdError {
  override name: string = 'ApiError';
  readonly request: string;
  readonly endpoint?: string;
  readonly querySetId?: number;
  readonly errorCode?: number;

  constructor(message: string, context: RequestContext, options?: { cause?: unknown; errorCode?: number }) {
    super(`${message} (${context.request})`, options);
    this.request = context.request;
    this.endpoint = context.endpoint;
    this.querySetId = context.querySetId;
    this.errorCode = options?.errorCode;
  }
}

/** -4: the key or secret is wrong, the credential disabled or deleted, or the company inactive. Fatal for the account. */
export class NotAuthorizedError extends ApiError {
  override name = 'NotAuthorizedError' as const;
}

/** -132: the query set does not exist or is outside the company scope. The set is retired. */
export class QuerySetNotFoundError extends ApiError {
  override name = 'QuerySetNotFoundError' as const;
}

/** -3: the server refused the request as malformed. Not retried: the same request would fail again. */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError' as const;
}

/** -145 that persisted through every retry. Normally -145 only makes the budget wait out the window. */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError' as const;
}

/** A network fault, timeout, non-JSON body or unknown error code that persisted through every retry. */
export class TransientApiError extends ApiError {
  override name = 'TransientApiError' as const;
}

/** The client refused to send a request the spec forbids (unknown parameter, bad enum value…). */
export class InvalidRequestError extends ApiError {
  override name = 'InvalidRequestError' as const;
}

/** A 2xx payload did not match the endpoint's schema. Carries the raw payload so it can be stored. */
export class ResponseValidationError extends ApiError {
  override name = 'ResponseValidationError' as const;
  constructor(
    message: string,
    context: RequestContext,
    readonly payload: unknown,
  ) {
    super(message, context);
  }
}
