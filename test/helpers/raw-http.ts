import { request } from 'node:http';

/**
 * One HTTP request with headers `fetch` may not set (`Host`): what a DNS-rebinding page's browser
 * sends to a local server. Resolves with the status and the body as text.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The requests a rebinding page makes: a foreign Host, and a foreign Origin with the right Host. */
export function foreignHeaders(url: string): {
  host: Record<string, string>;
  origin: Record<string, string>;
} {
  const port = new URL(url).port;
  return {
    host: { host: `evil.example:${port}` },
    origin: { host: new URL(url).host, origin: 'http://evil.example' },
  };
}
