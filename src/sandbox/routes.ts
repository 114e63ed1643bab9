import { allEndpoints, type EndpointDef, type PathParam } from '../api/endpoints.js';

/** Where the API lives on the sandbox host, as in the real service's base URL. */
export const BASE_PATH = '/v2/integration';

interface Route {
  endpoint: EndpointDef;
  pattern: RegExp;
}

/**
 * Routes are compiled from the endpoint catalog's path templates, so the sandbox serves exactly the
 * endpoints the client knows. Path parameters match any segment here; whether a segment is an
 * integer is checked afterwards, so `/sets/abc/runs` is a -3 rather than an unknown path.
 */
const routes: Route[] = allEndpoints.map((endpoint) => {
  const source = endpoint.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      return param ? `(?<${param}>[^/]+)` : segment.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
    })
    .join('/');
  return { endpoint, pattern: new RegExp(`^${source}$`) };
});

export interface RouteMatch {
  endpoint: EndpointDef;
  /** Raw path segments by parameter name, not yet checked. */
  params: Partial<Record<PathParam, string>>;
}

export function matchRoute(pathname: string): RouteMatch | undefined {
  if (!pathname.startsWith(BASE_PATH + '/')) return undefined;
  const rest = pathname.slice(BASE_PATH.length);
  for (const route of routes) {
    const match = route.pattern.exec(rest);
    if (match) return { endpoint: route.endpoint, params: { ...match.groups } };
  }
  return undefined;
}
