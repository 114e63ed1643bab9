import {
  type ApiError,
  BadRequestError,
  NotAuthorizedError,
  QuerySetNotFoundError,
  RateLimitedError,
  type RequestContext,
  TransientApiError,
} from '../errors/index.js';

/**
 * Every `error_code` of the spec's Errors table, once, with what reportd does about it. The client
 * classifies failures only through this table (never by HTTP status: every failure is a 500), and a
 * test fails when the spec names a code that has no row here.
 */

/** What the caller does when a code comes back. */
export type ErrorAction = 'retry' | 'waitWindow' | 'stopAccount' | 'retireSet' | 'failRequest';

/** How one attempt ended, as reported in `RequestEvent.outcome` and metrics. */
export type RequestOutcome =
  | 'ok'
  | 'not_authorized'
  | 'query_set_not_found'
  | 'bad_request'
  | 'rate_limited'
  | 'transient'
  | 'invalid_payload';

type ApiErrorClass = new (
  message: string,
  context: RequestContext,
  options?: { cause?: unknown; errorCode?: number },
) => ApiError;

export interface ErrorCodeRow {
  code: number;
  /** The spec's "Meaning" column. */
  meaning: string;
  /** The spec's documented `error_message`, when it documents one (-3 has none). */
  message?: string;
  action: ErrorAction;
  outcome: RequestOutcome;
  /** Thrown when the code ends the request (for `waitWindow`, only once the retries run out). */
  errorClass: ApiErrorClass;
  /** One line for the user: what it means for them. */
  hint: string;
}

export const ERROR_CODES: ReadonlyMap<number, ErrorCodeRow> = new Map<number, ErrorCodeRow>(
  (
    [
      {
        code: -4,
        meaning: 'Not authorized',
        message: 'Not authorized',
        // Retrying cannot fix a wrong or disabled credential; it only burns the budget.
        action: 'stopAccount',
        outcome: 'not_authorized',
        errorClass: NotAuthorizedError,
        hint: 'the API key or secret is wrong, the credential is disabled or deleted, or the company is inactive',
      },
      {
        code: -3,
        meaning: 'Bad request',
        action: 'failRequest',
        outcome: 'bad_request',
        errorClass: BadRequestError,
        hint: 'the server refused this request as malformed; the same request would fail again',
      },
      {
        code: -132,
        meaning: 'Query set not found',
        message: 'Query set not found',
        action: 'retireSet',
        outcome: 'query_set_not_found',
        errorClass: QuerySetNotFoundError,
        hint: 'the query set does not exist or is outside the company scope',
      },
      {
        code: -145,
        meaning: 'Rate limited',
        message: 'Rate limit exceeded',
        // The server counts the window as full: wait it out, then retry.
        action: 'waitWindow',
        outcome: 'rate_limited',
        errorClass: RateLimitedError,
        hint: 'more requests than the API key allows per window',
      },
    ] satisfies ErrorCodeRow[]
  ).map((row) => [row.code, row]),
);

/** Codes the spec does not name are treated as transient: retried with backoff, then reported. */
export const UNKNOWN_ERROR_CODE: Omit<ErrorCodeRow, 'code'> = {
  meaning: 'Unknown error code',
  action: 'retry',
  outcome: 'transient',
  errorClass: TransientApiError,
  hint: 'the server answered with an error code the spec does not describe',
};

export function errorCodeRow(code: number): ErrorCodeRow {
  return ERROR_CODES.get(code) ?? { ...UNKNOWN_ERROR_CODE, code };
}
