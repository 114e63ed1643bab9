import type { z } from 'zod';
import { type Clock, systemClock } from '../clock.js';
import {
  BodyTooLargeError,
  RateLimitedError,
  ReportdError,
  type RequestContext,
  TransientApiError,
} from '../errors/index.js';
import type { Logger } from '../log.js';
import { childOnUse, type LineWriter } from '../log-child.js';
import { registerSecret, scrub } from '../secrets.js';
import { DEFAULT_MAX_PAYLOAD_MB, readCapped } from './bounded-json.js';
import type { RateBudget } from './budget.js';
import type { EndpointDef } from './endpoints.js';
import { errorCodeRow, type RequestOutcome } from './error-codes.js';
import { type ApiPool, apiPool } from './pool.js';
import { type PathValues, type PreparedRequest, prepareRequest, type QueryParams } from './request.js';
import { type AttemptReport, type AttemptResult, interpretResponse, validated } from './response.js';
import { type BackoffOptions, backoffDelay } from './retry-timing.js';

export type { RequestOutcome };

/** One attempt, as metrics and the sync's request counts see it. */
export interface RequestEvent {
  endpoint: string;
  target: string;
  attempt: number;
  outcome: RequestOutcome;
  durationMs: number;
}

export interface ApiClientOptions {
  /** `https://host/v2/integration`, with or without a trailing `/`. */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** Every attempt draws from it: the server counts retries too. */
  budget: RateBudget;
  clock?: Clock;
  /** Largest body read (bytes); a longer one is refused while reading (`sync.max_payload_mb`). Default 32 MB. */
  maxPayloadBytes?: number;
  /** Per attempt, headers and body together. Default 30 000. */
  timeoutMs?: number;
  /** Attempts per request for transient failures (network, timeout, non-JSON, unknown code). Default 5. */
  maxAttempts?: number;
  /** How many -145 answers one request tolerates (each waits a whole window). Default 5. */
  maxRateLimited?: number;
  /** Retry delays: full jitter under min(capMs, baseMs·2^retry). Default 500 / 30 000. */
  backoff?: BackoffOptions;
  random?: () => number;
  logger?: Logger;
  onRequest?: (event: RequestEvent) => void;
}

/**
 * The Integration API client: one keep-alive connection pool per base URL, every attempt through the
 * rate budget, failures classified by the JSON body's `error_code` (never the HTTP status: every
 * failure is a 500, and a 200 in the error shape is an error too), payloads validated by the
 * endpoint's schema. The secret lives in a private field so no error, log line or inspection shows it.
 */
export class ApiClient {
  readonly #headers: Record<string, string>;
  private readonly pool: ApiPool;
  private readonly basePath: string;
  private readonly budget: RateBudget;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly maxPayloadBytes: number;
  private readonly maxAttempts: number;
  private readonly maxRateLimited: number;
  private readonly backoff: BackoffOptions;
  private readonly random: () => number;
  private readonly logger?: Logger;
  private readonly onRequest?: (event: RequestEvent) => void;
  private closing?: Promise<void>;

  constructor(options: ApiClientOptions) {
    registerSecret(options.apiSecret);
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new ReportdError(`invalid API base URL: ${scrub(options.baseUrl)}`);
    }
    // A trailing slash or none: the endpoint paths all start with `/`.
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.budget = options.budget;
    const connections = Number.isFinite(options.budget.concurrency) ? options.budget.concurrency : 8;
    this.pool = apiPool(url.origin, { connections, keepAliveTimeout: 10_000 });
    this.#headers = {
      'x-api-key': options.apiKey,
      'x-api-secret': options.apiSecret,
      accept: 'application/json',
    };
    this.clock = options.clock ?? systemClock;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_MB * 1024 * 1024;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.maxRateLimited = Math.max(1, options.maxRateLimited ?? 5);
    this.backoff = options.backoff ?? { baseMs: 500, capMs: 30_000 };
    this.random = options.random ?? Math.random;
    this.logger = options.logger;
    this.onRequest = options.onRequest;
  }

  /**
   * Fetches one endpoint and returns its validated payload. A forbidden parameter is refused before
   * anything is sent (InvalidRequestError). Aborting `signal` rejects with its reason, at any stage.
   */
  async get<S extends z.ZodType>(
    endpoint: EndpointDef<S>,
    path: PathValues,
    query?: QueryParams,
    options: { signal?: AbortSignal } = {},
  ): Promise<z.infer<S>> {
    if (this.closing) throw new ReportdError('the API client is closed');
    const prepared = prepareRequest(endpoint, path, query);
    const context: RequestContext = {
      request: `GET ${prepared.target}`,
      endpoint: endpoint.key,
      querySetId: prepared.querySetId,
    };
    const { signal } = options;
    const tally = { transientFailures: 0, rateLimited: 0 };
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const log = this.logger && childOnUse(this.logger, { endpoint: endpoint.key, attempt });
      const { result, started } = await this.attemptOnce(prepared, signal);
      const report = (outcome: RequestOutcome) => {
        const durationMs = this.clock.now() - started;
        log?.debug({ target: prepared.target, outcome, durationMs }, 'api request');
        this.emit({ endpoint: endpoint.key, target: prepared.target, attempt, outcome, durationMs });
      };
      if (result.kind === 'ok' || result.kind === 'rejected') {
        return validated(endpoint, result, { context, report });
      }

      let failure: RetryableFailure;
      if (result.kind === 'code') {
        const judged = this.judgeCode(
          endpoint.key,
          result,
          { context, report, log, target: prepared.target },
          tally,
        );
        if (judged === 'waitWindow') continue;
        failure = judged;
      } else {
        report('transient');
        failure = { reason: result.reason, cause: result.cause };
      }

      if (++tally.transientFailures >= this.maxAttempts) {
        throw new TransientApiError(
          `${endpoint.key}: gave up after ${attempt} attempts: ${failure.reason}`,
          context,
          { cause: failure.cause, errorCode: result.kind === 'code' ? result.code : undefined },
        );
      }
      const delay = backoffDelay(tally.transientFailures - 1, this.backoff, this.random);
      log?.warn(
        { target: prepared.target, reason: failure.reason, retryInMs: delay },
        'api request failed; retrying',
      );
      await this.clock.sleep(delay, signal);
    }
  }

  /** One attempt within the rate budget; `started` is when the budget let it go. */
  private async attemptOnce(
    prepared: PreparedRequest,
    signal: AbortSignal | undefined,
  ): Promise<{ result: AttemptResult; started: number }> {
    const release = await this.budget.acquire(signal);
    const started = this.clock.now();
    let result: AttemptResult;
    try {
      result = await this.send(prepared, signal);
      // Before release(): a waiter woken by it must already see the window as full.
      if (result.kind === 'code' && errorCodeRow(result.code).action === 'waitWindow') this.budget.penalize();
    } finally {
      release();
    }
    return { result, started };
  }

  /**
   * What an `error_code` answer means for the request (error-codes.ts): wait out the window and ask
   * again, a failure worth a retry, or (thrown) the end of the request.
   */
  private judgeCode(
    endpointKey: string,
    result: Extract<AttemptResult, { kind: 'code' }>,
    request: AttemptReport & { log: LineWriter | undefined; target: string },
    tally: { rateLimited: number },
  ): RetryableFailure | 'waitWindow' {
    const { context } = request;
    const row = errorCodeRow(result.code);
    request.report(row.outcome);
    const detail = `error_code ${result.code}${result.serverMessage ? ` "${result.serverMessage}"` : ''}`;
    if (row.action === 'waitWindow') {
      // penalize() in attemptOnce made the next acquire() wait out the window: no extra backoff.
      if (++tally.rateLimited >= this.maxRateLimited) {
        throw new RateLimitedError(
          `${endpointKey}: still rate limited after ${tally.rateLimited} windows (${detail})`,
          context,
          { errorCode: result.code },
        );
      }
      request.log?.warn({ target: request.target }, 'rate limited; waiting out the window');
      return 'waitWindow';
    }
    if (row.action !== 'retry') {
      throw new row.errorClass(`${endpointKey}: ${row.meaning} (${detail}): ${row.hint}`, context, {
        errorCode: result.code,
      });
    }
    const reason = `${row.meaning} (${detail})`;
    return { reason, cause: new Error(reason) };
  }

  /** Waits for requests in flight, then closes the connections. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= this.pool.close();
    return this.closing;
  }

  /** One attempt over the wire. Only the caller's abort escapes as an exception. */
  private async send(prepared: PreparedRequest, signal?: AbortSignal): Promise<AttemptResult> {
    // The timeout covers the whole attempt (a body that trickles forever too). It is real time on
    // purpose: it bounds a real socket, whatever clock schedules the retries.
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let status: number;
    let text: string;
    try {
      const response = await this.pool.request({
        method: 'GET',
        path: this.basePath + prepared.target,
        headers: this.#headers,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      status = response.statusCode;
      text = await readCapped(response.body, this.maxPayloadBytes);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof BodyTooLargeError) {
        return { kind: 'rejected', reason: `${error.message} (sync.max_payload_mb)` };
      }
      const reason = timeout.aborted
        ? `no complete response within ${this.timeoutMs} ms`
        : `network error: ${scrub(error instanceof Error ? error.message : String(error))}`;
      return { kind: 'transient', reason, cause: error };
    }
    return interpretResponse(status, text);
  }

  private emit(event: RequestEvent): void {
    try {
      this.onRequest?.(event);
    } catch (error) {
      // A broken metrics hook must not fail the request it reports on.
      this.logger?.error({ err: error }, 'onRequest listener threw');
    }
  }
}

/** A failed attempt that another may fix: why (for the log and the final error) and its cause. */
interface RetryableFailure {
  reason: string;
  cause: unknown;
}
