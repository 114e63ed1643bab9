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
  static override readonly code: string = 'ERR_API';
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
