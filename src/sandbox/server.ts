import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../clock.js';
import { SandboxApiFailure, SandboxBadRequest } from '../errors/index.js';
import { companyCredentials, companyOfSet } from './dataset/companies.js';
import { extraSets } from './dataset/extra-sets.js';
import { createDataset, type PublishOptions, type SandboxDataset } from './dataset.js';
import { BAD_GATEWAY_HTML, type FaultKind, FaultPlan } from './faults.js';
import { handlerFor } from './handlers.js';
import { SlidingWindow } from './rate-window.js';
import { BASE_PATH, matchRoute } from './routes.js';
import { parseId, resolveWindow, validateQuery } from './validate.js';

/**
 * A simulated Integration Reporting API on node:http, for tests, the demo and template work. It
 * answers the way the spec describes (JSON without wrapper; failures as HTTP 500 with
 * `{error_code, error_message}`) and decides what the spec leaves open, documented where decided:
 * - order of checks: -4 auth, then -145 rate, then -3 unknown path/method, then -3 parameters, then
 *   -132 query set, then -3 run window;
 * - the rate window is sliding, per API key, and counts admitted requests only (see rate-window.ts);
 * - with `companies` > 1 each company has its own credential, brands, sets, runs and rate window;
 *   ids never collide across companies, so another company's set is a -132 (dataset/companies.ts);
 * - an unknown brand id on /sets/brands/{brandId}/list is -3, as is an unknown path (with HTTP 500,
 *   like every other failure, so clients classify by error_code only);
 * - faults hit only first attempts (see faults.ts) and count against the rate window.
 */

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** Company 1's credential; company c > 1 gets `${apiKey}-c` / `${apiSecret}-c`. */
  apiKey?: string;
  apiSecret?: string;
  /** How many companies the sandbox serves, each with its own key (default 1). */
  companies?: number;
  rate?: { requests: number; windowMs: number };
  /** Share (0..1) of first attempts that fail with a network-style fault. */
  faults?: number;
  /**
   * How long a "stall" fault waits before answering normally; default 3000 ms. The wait runs on
   * `clock`, so with a FakeClock the test decides when the stalled answer comes.
   */
  faultStallMs?: number;
  /** Restrict faults to some kinds (default: all three). */
  faultKinds?: readonly FaultKind[];
  /** Changes which requests fault; the data set does not depend on it. */
  faultSeed?: number;
  /** Hostile strings in the data set (see DatasetOptions). */
  hostile?: boolean;
  /**
   * A quiet world: every run is an independent draw of answers from rates that never drift, so a
   * change between runs is sampling noise unless a run is published with `grossChange` (see
   * DatasetOptions.quiet).
   */
  quiet?: boolean;
  /** More query sets in every company: 301, 302, … (two runs each, shaped like set 101). */
  extraSets?: number;
  /**
   * How long every metric (payload) request waits before it is answered (ms, default 0), on
   * `clock`: a slow server, so a test can act while a sync is fetching.
   */
  latencyMs?: number;
  clock?: Clock;
}

export interface SandboxStats {
  total: number;
  byEndpoint: Record<string, number>;
  byErrorCode: Record<string, number>;
  faults: number;
  /**
   * Sandbox-only, for tests that count refetches: how often each payload request (a metric endpoint's
   * path below the base URL, with its query) arrived past the auth and rate checks, whether or not the
   * client waited for its answer.
   */
  byPayload: Record<string, number>;
}

export interface Sandbox {
  /** http://127.0.0.1:PORT/v2/integration */
  baseUrl: string;
  /** Company 1's credential. */
  apiKey: string;
  apiSecret: string;
  companies: number;
  /** The credential of company 1..companies. */
  credentials(company: number): { apiKey: string; apiSecret: string };
  stats: SandboxStats;
  resetStats(): void;
  /** Forget which requests were attempted, so their next attempt can fault again (sandbox extra). */
  resetFaults(): void;
  /**
   * Publishes the next run of a set (of whichever company owns it); `movement` trips the example
   * alert rules; `grossChange` moves the brand's presence rate by that many points from this run on
   * (the run's gross presence moves by exactly that, to within one answer; its breakdowns as sampling
   * gives) and `answers` sets the run's number of answers (see PublishOptions).
   */
  publishRun(
    querySetId: number,
    options?: PublishOptions,
  ): { id: number; display_name: string; created_at: string };
  close(): Promise<void>;
}

const NOT_AUTHORIZED = () => new SandboxApiFailure(-4, 'Not authorized');

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const apiKey = options.apiKey ?? 'sandbox-key';
  const apiSecret = options.apiSecret ?? 'sandbox-secret';
  const clock = options.clock ?? systemClock;
  const rate = options.rate ?? { requests: 120, windowMs: 60_000 };
  const window = new SlidingWindow(rate.requests, rate.windowMs, clock);
  const faults = new FaultPlan(options.faults ?? 0, options.faultKinds, options.faultSeed);
  const stallMs = options.faultStallMs ?? 3000;
  const companies = options.companies ?? 1;
  if (!Number.isSafeInteger(companies) || companies < 1) {
    throw new RangeError(`sandbox: companies must be a whole number >= 1 (got ${companies})`);
  }
  // Checked now, not on the first request: a bad option is the test's mistake, not an API failure.
  extraSets(options.extraSets ?? 0);
  const base = { apiKey, apiSecret };
  const credentials = (company: number) => {
    if (!(company >= 1 && company <= companies)) throw new RangeError(`sandbox: no company ${company}`);
    return companyCredentials(company, base);
  };
  // Key → its company; a company's data set is built on its first request, so 200 cost nothing idle.
  const companyOfKey = new Map<string, { secret: string; company: number }>();
  for (let company = 1; company <= companies; company++) {
    const c = credentials(company);
    companyOfKey.set(c.apiKey, { secret: c.apiSecret, company });
  }
  const datasets = new Map<number, SandboxDataset>();
  const datasetOf = (company: number): SandboxDataset => {
    let ds = datasets.get(company);
    if (!ds) {
      ds = createDataset({
        hostile: options.hostile,
        quiet: options.quiet,
        extraSets: options.extraSets,
        company,
      });
      datasets.set(company, ds);
    }
    return ds;
  };
  // The first company's runs are counted before the first request (the others' on their first).
  datasetOf(1).warmUp();
  const stats: SandboxStats = { total: 0, byEndpoint: {}, byErrorCode: {}, faults: 0, byPayload: {} };
  const latencyMs = options.latencyMs ?? 0;
  const shutdown = new AbortController();

  const bump = (map: Record<string, number>, key: string) => {
    map[key] = (map[key] ?? 0) + 1;
  };

  /** Waits `ms` before answering; false when the client gave up or the sandbox closed meanwhile. */
  async function wait(res: ServerResponse, ms: number): Promise<boolean> {
    const aborted = new AbortController();
    const abort = () => aborted.abort();
    res.on('close', abort);
    shutdown.signal.addEventListener('abort', abort, { once: true });
    try {
      await clock.sleep(ms, aborted.signal);
      return true;
    } catch {
      return false; // nobody is listening any more
    } finally {
      res.off('close', abort);
      shutdown.signal.removeEventListener('abort', abort);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.total++;
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const key = req.headers['x-api-key'];
    const owner = typeof key === 'string' ? companyOfKey.get(key) : undefined;
    if (!owner || req.headers['x-api-secret'] !== owner.secret) throw NOT_AUTHORIZED();
    if (!window.tryAdmit(key as string)) throw new SandboxApiFailure(-145, 'Rate limit exceeded');
    const route = matchRoute(url.pathname);
    if (!route) throw new SandboxBadRequest(`no endpoint at ${url.pathname}`);
    bump(stats.byEndpoint, route.endpoint.key);
    if (req.method !== 'GET')
      throw new SandboxBadRequest(`method ${req.method} not allowed, every endpoint is GET`);
    const payload = route.endpoint.group !== 'catalog';
    if (payload) bump(stats.byPayload, `${url.pathname.slice(BASE_PATH.length)}${url.search}`);

    const fault = faults.decide(`${req.method} ${url.pathname}${url.search}`);
    if (fault) {
      stats.faults++;
      if (fault === 'reset') return void req.socket.destroy();
      if (fault === 'html502') {
        res.writeHead(502, { 'content-type': 'text/html' });
        return void res.end(BAD_GATEWAY_HTML);
      }
      if (!(await wait(res, stallMs))) return;
    }
    if (payload && latencyMs > 0 && !(await wait(res, latencyMs))) return;

    validateQuery(route.endpoint, url.searchParams);
    const handler = handlerFor(route.endpoint.key);
    if (!handler) throw new Error(`sandbox: no handler for ${route.endpoint.key}`);
    const body = answer(datasetOf(owner.company), route, url.searchParams, handler);
    sendJson(res, 200, body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      const failure =
        error instanceof SandboxApiFailure
          ? error
          : error instanceof SandboxBadRequest
            ? new SandboxApiFailure(-3, error.message)
            : new SandboxApiFailure(
                -1,
                `Internal error: ${error instanceof Error ? error.message : String(error)}`,
              );
      bump(stats.byErrorCode, String(failure.errorCode));
      sendJson(res, 500, { error_code: failure.errorCode, error_message: failure.message });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = ['0.0.0.0', '::'].includes(address.address)
    ? '127.0.0.1'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;

  let closing: Promise<void> | undefined;
  return {
    baseUrl: `http://${host}:${address.port}${BASE_PATH}`,
    apiKey,
    apiSecret,
    companies,
    credentials,
    stats,
    resetStats() {
      stats.total = 0;
      stats.faults = 0;
      stats.byEndpoint = {};
      stats.byErrorCode = {};
      stats.byPayload = {};
    },
    resetFaults: () => faults.reset(),
    publishRun: (querySetId, options) => {
      const company = companyOfSet(querySetId);
      if (company > companies)
        throw new Error(`sandbox: query set ${querySetId} is in no company of this sandbox`);
      return datasetOf(company).publishRun(querySetId, options);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        shutdown.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function answer(
  ds: SandboxDataset,
  route: NonNullable<ReturnType<typeof matchRoute>>,
  query: URLSearchParams,
  handler: NonNullable<ReturnType<typeof handlerFor>>,
): unknown {
  // Path parameters come from the matched template itself, so /brands/list needs none.
  const { params } = route;
  if (handler.kind === 'catalog' && params.querySetId === undefined && params.brandId === undefined) {
    return handler.run({ ds });
  }
  if (params.brandId !== undefined) {
    const brandId = parseId('brandId', params.brandId);
    // The spec does not say what an unknown brand gives; -3 keeps -132 meaning "query set" only.
    if (!ds.hasBrand(brandId)) throw new SandboxBadRequest(`unknown brand ${brandId}`);
    return handler.kind === 'catalog' ? handler.run({ ds, brandId }) : undefined;
  }
  const querySetId = parseId('querySetId', params.querySetId);
  const set = ds.set(querySetId);
  if (!set) throw new SandboxApiFailure(-132, 'Query set not found');
  if (handler.kind === 'catalog') return handler.run({ ds, set });
  const { start, end } = resolveWindow(set, query);
  return handler.run({ ds, set, start, end, query });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
