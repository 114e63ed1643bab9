import { InvalidRequestError } from '../errors/index.js';
import type { EndpointDef, PathParam } from './endpoints.js';

export type QueryValue = string | number;
export type QueryParams = Readonly<Record<string, QueryValue | undefined>>;
export type PathValues = Partial<Record<PathParam, number>>;

/** A request the spec allows, ready to send: `target` is the path and query relative to the base URL. */
export interface PreparedRequest {
  endpoint: EndpointDef;
  /** `/presence/sets/101/gross?end_run_id=7` */
  target: string;
  querySetId?: number;
}

/**
 * Checks path values and query parameters against the catalog and builds the request target. A
 * combination the spec forbids is refused here, before anything is sent (the server would answer -3).
 */
export function prepareRequest(
  endpoint: EndpointDef,
  path: PathValues,
  query: QueryParams = {},
): PreparedRequest {
  const describe = (detail: string) =>
    new InvalidRequestError(`${endpoint.key}: ${detail}`, {
      request: `GET ${endpoint.path}`,
      endpoint: endpoint.key,
    });

  let target = endpoint.path;
  for (const name of endpoint.pathParams) {
    const value = path[name];
    if (value === undefined || !Number.isSafeInteger(value))
      throw describe(`path parameter ${name} must be an integer`);
    target = target.replace(`{${name}}`, String(value));
  }

  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const rule = endpoint.params[name];
    if (!rule) {
      const allowed = Object.keys(endpoint.params);
      throw describe(
        `query parameter ${name} is not allowed` +
          (allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (none allowed)'),
      );
    }
    if (rule.type === 'integer') {
      const n = typeof value === 'number' ? value : Number(value);
      if (!Number.isSafeInteger(n) || (rule.min !== undefined && n < rule.min)) {
        throw describe(
          `query parameter ${name} must be an integer${rule.min !== undefined ? ` >= ${rule.min}` : ''}`,
        );
      }
      search.set(name, String(n));
    } else {
      if (!rule.values.includes(String(value))) {
        throw describe(`query parameter ${name} must be one of ${rule.values.join(', ')}`);
      }
      search.set(name, String(value));
    }
  }
  const start = query.start_run_id;
  const end = query.end_run_id;
  if (start !== undefined && end !== undefined && Number(start) > Number(end)) {
    // The spec leaves this case undefined; refusing it keeps history series meaningful.
    throw describe('start_run_id must not be greater than end_run_id');
  }
  const qs = search.toString();
  return { endpoint, target: qs ? `${target}?${qs}` : target, querySetId: path.querySetId };
}
