import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: a JSON or raw body, a dropped connection, or silence. */
export type Answer =
  | { status: number; json: unknown }
  | { status: number; body: string; contentType?: string }
  | 'destroy'
  | 'stall';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  at: number;
}

/**
 * A real HTTP server whose answers per path are scripted in order (the last one repeats), so the
 * client is exercised over real sockets: keep-alive, resets, stalls and all.
 */
export async function startScriptedServer() {
  const scripts = new Map<string, Answer[]>();
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    received.push({ path, headers: req.headers, at: Date.now() });
    const script = scripts.get(path.split('?')[0]!) ?? [{ status: 404, body: 'no script for ' + path }];
    const answer = script.length > 1 ? script.shift()! : script[0]!;
    if (answer === 'destroy') return req.socket.destroy();
    if (answer === 'stall') return; // never answers; closeAllConnections() ends it
    if ('json' in answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(answer.json));
    }
    res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/html' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v2/integration`,
    received,
    /** Answers for `/v2/integration` + `path`, in order. */
    script(path: string, ...answers: Answer[]) {
      scripts.set(`/v2/integration${path}`, answers);
    },
    requestsTo(path: string): Received[] {
      return received.filter((r) => r.path.split('?')[0] === `/v2/integration${path}`);
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
