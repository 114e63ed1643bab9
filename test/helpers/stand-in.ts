import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An API stand-in: a local HTTP server in front of the sandbox that answers as the sandbox does,
 * except for the answers `rewrite` changes — an API that reads the spec differently (which figure
 * `presence/by-engine`'s `delta` is the change of), or one that sends values no unit allows. Headers
 * (the credentials) go through as they came; failures (HTTP 500, `{error_code}`) come back untouched.
 */

export type UpstreamGet = (pathAndQuery: string) => Promise<unknown>;

export type Rewrite = (
  request: { path: string; query: URLSearchParams },
  body: unknown,
  upstream: UpstreamGet,
) => unknown | Promise<unknown>;

export interface StandIn {
  /** http://127.0.0.1:PORT/v2/integration: the sandbox's base URL on the stand-in's port. */
  baseUrl: string;
  close(): Promise<void>;
}

export async function startStandIn(sandboxBaseUrl: string, rewrite: Rewrite): Promise<StandIn> {
  const upstream = new URL(sandboxBaseUrl);
  const server: Server = createServer((req, res) => {
    void answer(req).then(
      ({ status, type, text }) => {
        res.writeHead(status, { 'content-type': type });
        res.end(text);
      },
      (error: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(error));
      },
    );
  });
  const credentials = (req: IncomingMessage): Record<string, string> => {
    const headers: Record<string, string> = {};
    for (const name of ['x-api-key', 'x-api-secret'])
      if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
    return headers;
  };
  async function answer(req: IncomingMessage) {
    const target = new URL(req.url ?? '/', upstream.origin);
    const headers = credentials(req);
    const response = await fetch(target, { headers });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? 'application/json';
    if (response.status !== 200 || !type.includes('json')) return { status: response.status, type, text };
    const get: UpstreamGet = async (pathAndQuery) => {
      const again = await fetch(new URL(upstream.pathname + pathAndQuery, upstream.origin), { headers });
      if (again.status !== 200) throw new Error(`stand-in upstream ${pathAndQuery}: ${again.status}`);
      return again.json();
    };
    const path = target.pathname.slice(upstream.pathname.length);
    const body = await rewrite({ path, query: target.searchParams }, JSON.parse(text), get);
    return { status: 200, type, text: JSON.stringify(body) };
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
