import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RateBudget } from '../../src/api/budget.js';
import { ApiClient, type ApiClientOptions, type RequestEvent } from '../../src/api/client.js';
import { metricEndpoint } from '../../src/api/endpoints.js';
import { FakeClock } from '../../src/clock.js';
import {
  type ApiError,
  BadRequestError,
  InvalidRequestError,
  NotAuthorizedError,
  QuerySetNotFoundError,
  RateLimitedError,
  ResponseValidationError,
  TransientApiError,
} from '../../src/errors/index.js';
import { startScriptedServer } from './scripted-server.js';

/** Real sockets under a loaded CI machine can take a while. */
const WAIT = { timeout: 10_000 };
const gross = metricEndpoint('presence.gross');
const GROSS = '/presence/sets/101/gross';
const card = {
  current: 41.5,
  delta: 2.5,
  history: [30, 35, 39, 41.5],
  historyLabels: ['Jan', 'Feb', 'Mar', 'Apr'],
};
const fail = (code: number, message: string) => ({
  status: 500,
  json: { error_code: code, error_message: message },
});

/** The error a request failed with, typed as the API error it must be so the test can read its fields. */
async function rejection(request: Promise<unknown>): Promise<ApiError & { payload?: unknown }> {
  try {
    await request;
  } catch (error) {
    return error as ApiError & { payload?: unknown };
  }
  throw new Error('expected the request to fail');
}

let server: Awaited<ReturnType<typeof startScriptedServer>>;
const clients: ApiClient[] = [];

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  server.received.length = 0;
});

/** A client with quick retries; `events` collects every attempt it reports. */
function client(overrides: Partial<ApiClientOptions> = {}) {
  const events: RequestEvent[] = [];
  const c = new ApiClient({
    baseUrl: server.baseUrl,
    apiKey: 'test-key',
    apiSecret: 'test-secret-value',
    budget: new RateBudget({ key: 'test-key', requests: 1_000, windowMs: 60_000 }),
    timeoutMs: 2_000,
    maxAttempts: 3,
    backoff: { baseMs: 5, capMs: 20 },
    onRequest: (e) => events.push(e),
    ...overrides,
  });
  clients.push(c);
  return { c, events, outcomes: () => events.map((e) => e.outcome) };
}

describe('ApiClient error classification (by error_code, never by status)', () => {
  it('-4 throws NotAuthorizedError at once and is never retried', async () => {
    server.script(GROSS, fail(-4, 'Not authorized'), { status: 200, json: card });
    const { c, outcomes } = client();
    const error = await rejection(c.get(gross, { querySetId: 101 }));
    expect(error).toBeInstanceOf(NotAuthorizedError);
    expect(error.errorCode).toBe(-4);
    expect(server.requestsTo(GROSS)).toHaveLength(1);
    expect(outcomes()).toEqual(['not_authorized']);
  });

  it('a 200 in the error shape is an error too', async () => {
    server.script(GROSS, { status: 200, json: { error_code: -4, error_message: 'Not authorized' } });
    await expect(client().c.get(gross, { querySetId: 101 })).rejects.toBeInstanceOf(NotAuthorizedError);
  });

  it('-3 throws BadRequestError naming method, path and query, not retried', async () => {
    server.script(GROSS, fail(-3, 'Bad request'));
    const error = await rejection(client().c.get(gross, { querySetId: 101 }, { end_run_id: 7 }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toContain('GET /presence/sets/101/gross?end_run_id=7');
    expect(server.requestsTo(GROSS)).toHaveLength(1);
  });

  it('-132 throws QuerySetNotFoundError carrying the query set', async () => {
    server.script('/presence/sets/999/gross', fail(-132, 'Query set not found'));
    const error = await rejection(client().c.get(gross, { querySetId: 999 }));
    expect(error).toBeInstanceOf(QuerySetNotFoundError);
    expect(error).toMatchObject({ querySetId: 999, errorCode: -132, endpoint: 'presence.gross' });
    expect(server.requestsTo('/presence/sets/999/gross')).toHaveLength(1);
  });

  it('-145 penalizes the budget: the retry waits a whole window, then succeeds', async () => {
    server.script(GROSS, fail(-145, 'Rate limit exceeded'), { status: 200, json: card });
    const budget = new RateBudget({ key: 'k', requests: 100, windowMs: 400 });
    const { c, outcomes } = client({ budget });
    await expect(c.get(gross, { querySetId: 101 })).resolves.toEqual(card);
    const [first, second] = server.requestsTo(GROSS);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(395);
    expect(outcomes()).toEqual(['rate_limited', 'ok']);
  });

  it('-145 holds back every request of the key, not only the one that got it', async () => {
    const WEIGHTED = '/presence/sets/101/weighted';
    server.script(GROSS, fail(-145, 'Rate limit exceeded'), { status: 200, json: card });
    server.script(WEIGHTED, fail(-3, 'checked only for its arrival time'));
    const budget = new RateBudget({ key: 'k', requests: 100, windowMs: 400, concurrency: 1 });
    const { c } = client({ budget });
    const first = c.get(gross, { querySetId: 101 });
    const second = c.get(metricEndpoint('presence.weighted'), { querySetId: 101 }).catch(() => {});
    await Promise.all([first, second]);
    const limited = server.requestsTo(GROSS)[0]!;
    expect(server.requestsTo(WEIGHTED)[0]!.at - limited.at).toBeGreaterThanOrEqual(395);
  });

  it('-145 that persists ends in RateLimitedError after a bounded number of windows', async () => {
    server.script(GROSS, fail(-145, 'Rate limit exceeded'));
    const budget = new RateBudget({ key: 'k', requests: 100, windowMs: 50 });
    const error = await rejection(client({ budget, maxRateLimited: 3 }).c.get(gross, { querySetId: 101 }));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(server.requestsTo(GROSS)).toHaveLength(3);
  });

  it.each([
    ['an HTML 502', { status: 502, body: '<html><body>Bad gateway</body></html>' }],
    ['a dropped connection', 'destroy' as const],
    ['an unknown error_code', fail(-99, 'Something odd')],
    ['a 500 without error_code', { status: 500, json: { oops: true } }],
  ])('retries after %s, then succeeds', async (_, answer) => {
    server.script(GROSS, answer, { status: 200, json: card });
    const { c, outcomes } = client();
    await expect(c.get(gross, { querySetId: 101 })).resolves.toEqual(card);
    expect(server.requestsTo(GROSS)).toHaveLength(2);
    expect(outcomes()).toEqual(['transient', 'ok']);
  });

  it('times out a stalled response and retries', async () => {
    server.script(GROSS, 'stall', { status: 200, json: card });
    const { c, events } = client({ timeoutMs: 300 });
    await expect(c.get(gross, { querySetId: 101 })).resolves.toEqual(card);
    expect(events.map((e) => [e.attempt, e.outcome])).toEqual([
      [1, 'transient'],
      [2, 'ok'],
    ]);
  });

  it('gives up with TransientApiError and its cause after maxAttempts', async () => {
    server.script(GROSS, { status: 502, body: '<html>Bad gateway</html>' });
    const error = await rejection(client().c.get(gross, { querySetId: 101 }));
    expect(error).toBeInstanceOf(TransientApiError);
    expect(error.message).toMatch(/gave up after 3 attempts: HTTP 502 .*Bad gateway/);
    expect(error.cause).toBeInstanceOf(Error);
    expect(server.requestsTo(GROSS)).toHaveLength(3);
  });

  it('rejects an invalid payload with the endpoint, field path and raw payload, not retried', async () => {
    const bad = { ...card, history: [30, 35, 39, 'n/a'] };
    server.script(GROSS, { status: 200, json: bad });
    const { c, outcomes } = client();
    const error = await rejection(c.get(gross, { querySetId: 101 }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toMatch(/^presence\.gross: history\.3: .*expected number/);
    expect(error.payload).toEqual(bad);
    expect(outcomes()).toEqual(['invalid_payload']);
    expect(server.requestsTo(GROSS)).toHaveLength(1);
  });

  it('refuses a forbidden parameter before anything is sent', async () => {
    const { c } = client();
    const competitors = metricEndpoint('market.life-monitored-competitors');
    await expect(c.get(competitors, { querySetId: 101 }, { start_run_id: 1 })).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    await expect(c.get(gross, { querySetId: 101 }, { bogus: 1 })).rejects.toBeInstanceOf(InvalidRequestError);
    expect(server.received).toHaveLength(0);
  });
});

describe('ApiClient retry timing and abort', () => {
  it('sleeps between retries on the injected clock, with jittered capped backoff', async () => {
    server.script(GROSS, { status: 502, body: 'x' }, { status: 502, body: 'x' }, { status: 200, json: card });
    const clock = new FakeClock();
    const budget = new RateBudget({ key: 'k', requests: 100, windowMs: 60_000, clock });
    const { c } = client({ clock, budget, random: () => 0.5, backoff: { baseMs: 1_000, capMs: 10_000 } });
    const result = c.get(gross, { querySetId: 101 });
    await vi.waitFor(() => expect(clock.pendingSleepers).toBe(1), WAIT);
    expect(server.requestsTo(GROSS)).toHaveLength(1);
    await clock.advance(499); // first retry: 0.5 × 1000
    expect(server.requestsTo(GROSS)).toHaveLength(1);
    await clock.advance(1);
    await vi.waitFor(() => expect(clock.pendingSleepers).toBe(1), WAIT);
    expect(server.requestsTo(GROSS)).toHaveLength(2);
    await clock.advance(1_000); // second retry: 0.5 × 2000
    await expect(result).resolves.toEqual(card);
    expect(server.requestsTo(GROSS)).toHaveLength(3);
  });

  it('aborting stops a request waiting to retry', async () => {
    server.script(GROSS, { status: 502, body: 'x' });
    const controller = new AbortController();
    const { c } = client({ backoff: { baseMs: 60_000, capMs: 60_000 }, random: () => 0.99 });
    const result = c.get(gross, { querySetId: 101 }, {}, { signal: controller.signal });
    await vi.waitFor(() => expect(server.requestsTo(GROSS)).toHaveLength(1), WAIT);
    controller.abort(new Error('shutdown'));
    await expect(result).rejects.toThrow('shutdown');
  });
});
