import { retryAfter } from './http-answer.js';
import type { ChannelResult } from './types.js';

/**
 * The client's error codes, as the outbox's states. `ts` is the message already posted, when the
 * failure came after it (the upload): the reply says so.
 */
export function slackFailure(error: unknown, now: number, ts: string | undefined): ChannelResult {
  const err = error as {
    code?: string;
    message?: string;
    statusCode?: number;
    retryAfter?: number;
    headers?: Record<string, string>;
    data?: { error?: string; response_metadata?: { retryAfter?: number } };
  };
  const where = ts ? `message ${ts} posted, file upload: ` : '';
  switch (err.code) {
    case 'slack_webapi_rate_limited_error':
      return {
        state: 'deferred',
        reply: `${where}rate limited`,
        retryAfterMs: (err.retryAfter ?? 0) * 1000,
      };
    case 'slack_webapi_http_error': {
      const status = err.statusCode ?? 0;
      const reply = `${where}HTTP ${status}`;
      if (status === 429 || status === 408 || status >= 500) {
        const after = retryAfter(err.headers?.['retry-after'] ?? null, now);
        return { state: 'deferred', reply, ...(after === undefined ? {} : { retryAfterMs: after }) };
      }
      return { state: 'refused', reply };
    }
    case 'slack_webapi_platform_error': {
      const code = err.data?.error ?? 'unknown_error';
      const reply = `${where}${code}`;
      if (!TRANSIENT_PLATFORM.has(code)) return { state: 'refused', reply };
      // An `ok: false` answer can carry Retry-After too (the client puts it in response_metadata):
      // a floor under the outbox's backoff, as for a 429.
      const seconds = err.data?.response_metadata?.retryAfter;
      const after = typeof seconds === 'number' ? retryAfter(String(seconds), now) : undefined;
      return { state: 'deferred', reply, ...(after === undefined ? {} : { retryAfterMs: after }) };
    }
    default:
      // Network faults, timeouts, the upload URL failing: worth another attempt.
      return { state: 'deferred', reply: `${where}${err.message ?? String(error)}` };
  }
}

const TRANSIENT_PLATFORM = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);
