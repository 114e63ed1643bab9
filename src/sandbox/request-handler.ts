import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock.js';
import { SandboxApiFailure, SandboxBadRequest } from '../errors/index.js';
import type { CompanyRegistry } from './company-registry.js';
import type { SandboxDataset } from './dataset.js';
import { BAD_GATEWAY_HTML, type FaultPlan } from './faults.js';
import { handlerFor } from './handlers.js';
import type { SlidingWindow } from './rate-window.js';
import { BASE_PATH, matchRoute, type RouteMatch } from './routes.js';
import { bump, type SandboxStats } from './stats.js';
import { parseId, resolveWindow, validateQuery } from './validate.js';

/** What one request of the sandbox is answered from (server.ts builds it from the options). */
export interface RequestContext {
  companies: CompanyRegistry;
  window: SlidingWindow;
  faults: FaultPlan;
  /** How long a "stall" fault waits before answering normally (ms, on `clock`). */
  stallMs: number;
  /** How long every payload request waits before it is answered (ms, on `clock`). */
  latencyMs: number;
  clock: Clock;
  stats: SandboxStats;
  /** Aborted when the sandbox closes: every wait ends then. */
  shutdown: AbortSignal;
}

const NOT_AUTHORIZED = () => new SandboxApiFailure(-4, 'Not authorized');

/** The server's request listener: every failure answers as the spec's HTTP 500 with `error_code`. */
export function requestHandler(context: RequestContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(context, req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      const failure = apiFailureOf(error);
      bump(context.stats.byErrorCode, String(failure.errorCode));
      sendJson(res, 500, { error_code: failure.errorCode, error_message: failure.message });
    });
  };
}

/** The checks in the order server.ts documents: auth, rate, path, method, then the answer. */
async function handle(context: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { stats } = context;
  stats.total++;
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const key = req.headers['x-api-key'];
  const owner = typeof key === 'string' ? context.companies.ownerOf(key) : undefined;
  if (!owner || req.headers['x-api-secret'] !== owner.secret) throw NOT_AUTHORIZED();
  if (!context.window.tryAdmit(key as string)) throw new SandboxApiFailure(-145, 'Rate limit exceeded');
  const route = matchRoute(url.pathname);
  if (!route) throw new SandboxBadRequest(`no endpoint at ${url.pathname}`);
  bump(stats.byEndpoint, route.endpoint.key);
  if (req.method !== 'GET')
    throw new SandboxBadRequest(`method ${req.method} not allowed, every endpoint is GET`);
  const payload = route.endpoint.group !== 'catalog';
  if (payload) bump(stats.byPayload, `${url.pathname.slice(BASE_PATH.length)}${url.search}`);

  if (!(await survivesFault(context, `${req.method} ${url.pathname}${url.search}`, req, res))) return;
  if (payload && context.latencyMs > 0 && !(await wait(context, res, context.latencyMs))) return;

  validateQuery(route.endpoint, url.searchParams);
  const handler = handlerFor(route.endpoint.key);
  if (!handler) throw new Error(`sandbox: no handler for ${route.endpoint.key}`);
  const body = answer(context.companies.datasetOf(owner.company), route, url.searchParams, handler);
  sendJson(res, 200, body);
}

/**
 * Plays the fault the plan decides for this request, if any: false when the request is done with
 * (the socket reset, a 502 page sent, or nobody left to answer after a stall).
 */
async function survivesFault(
  context: RequestContext,
  requestKey: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const fault = context.faults.decide(requestKey);
  if (!fault) return true;
  context.stats.faults++;
  if (fault === 'reset') {
    req.socket.destroy();
    return false;
  }
  if (fault === 'html502') {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end(BAD_GATEWAY_HTML);
    return false;
  }
  return wait(context, res, context.stallMs);
}

/** Waits `ms` before answering; false when the client gave up or the sandbox closed meanwhile. */
async function wait(context: RequestContext, res: ServerResponse, ms: number): Promise<boolean> {
  const aborted = new AbortController();
  const abort = () => aborted.abort();
  res.on('close', abort);
  context.shutdown.addEventListener('abort', abort, { once: true });
  try {
    await context.clock.sleep(ms, aborted.signal);
    return true;
  } catch {
    return false; // nobody is listening any more
  } finally {
    res.off('close', abort);
    context.shutdown.removeEventListener('abort', abort);
  }
}

function answer(
  ds: SandboxDataset,
  route: RouteMatch,
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

/** A -3 for a bad request, the failure itself for an API failure, and -1 for anything else. */
function apiFailureOf(error: unknown): SandboxApiFailure {
  if (error instanceof SandboxApiFailure) return error;
  if (error instanceof SandboxBadRequest) return new SandboxApiFailure(-3, error.message);
  return new SandboxApiFailure(
    -1,
    `Internal error: ${error instanceof Error ? error.message : String(error)}`,
  );
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
