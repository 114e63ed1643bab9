import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny HTTP server in front of the sandbox that passes everything through but rewrites the bodies
 * of matching paths: the cleanest way to get a payload that fails validation without teaching the
 * sandbox to lie.
 */
export async function startCorruptingProxy(
  sandboxBaseUrl: string,
  corrupt: {
    path?: RegExp;
    rewrite?: (body: Record<string, unknown>) => unknown;
    /** Rewrites the body as text (for answers JSON.stringify cannot build, e.g. nested 100,000 deep). */
    rewriteText?: (body: string) => string;
    /** Answers instead of the sandbox when it returns a body (e.g. a -4 once the secret is "rotated"). */
    intercept?: (url: string) => unknown;
  },
): Promise<{ baseUrl: string; corrupted: number; close(): Promise<void> }> {
  const upstream = new URL(sandboxBaseUrl);
  const state = { corrupted: 0 };
  const server: Server = createServer(async (req, res) => {
    try {
      const own = corrupt.intercept?.(req.url ?? '');
      if (own !== undefined) {
        res.writeHead(500, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify(own));
      }
      const response = await fetch(`${upstream.origin}${req.url}`, {
        headers: {
          'x-api-key': String(req.headers['x-api-key'] ?? ''),
          'x-api-secret': String(req.headers['x-api-secret'] ?? ''),
        },
      });
      let body = await response.text();
      if (response.ok && corrupt.path?.test(req.url ?? '')) {
        if (corrupt.rewrite)
          body = JSON.stringify(corrupt.rewrite(JSON.parse(body) as Record<string, unknown>));
        if (corrupt.rewriteText) body = corrupt.rewriteText(body);
        if (corrupt.rewrite || corrupt.rewriteText) state.corrupted++;
      }
      res.writeHead(response.status, { 'content-type': 'application/json' });
      res.end(body);
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
    get corrupted() {
      return state.corrupted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
