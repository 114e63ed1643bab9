import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { createServer } from '../http-server.js';
import type { Logger } from '../log.js';
import { scrub } from '../secrets.js';
import { refuseForeign } from '../status/allowed-hosts.js';
import type { ExtraRoute } from '../status/routes.js';

/**
 * The daemon's HTTP listener (config `http.port`): `/healthz` says the process is alive, `/readyz`
 * whether it can do its job (store open, last sync not failed), `/metrics` is Prometheus text.
 * `extra` serves the status page and its downloads (src/status/routes.ts) with their own access rule;
 * the three probes stay open whatever it says. Nothing here reads a request body. A request naming a
 * foreign Host or coming from a foreign Origin is refused before any of it (status/allowed-hosts.ts).
 */
export interface HealthServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface HealthOptions {
  port: number;
  host?: string;
  /** `http.allowed_hosts`: names besides the address that requests may name (allowed-hosts.ts). */
  allowedHosts?: readonly string[];
  registry: Registry;
  /** Undefined when ready, else the one-line reason (shown in the 503 body). Reads the store. */
  notReadyReason: () => Promise<string | undefined>;
  logger?: Logger;
  /** Further GET routes (the status page); answered before the 404. */
  extra?: ExtraRoute;
  /**
   * Lines `/readyz?verbose` adds under the answer (the instances sharing the store, their slots and
   * leases). The probe's plain answer stays one line.
   */
  readyDetail?: () => Promise<string[]>;
  /**
   * The answer instead of `/readyz?verbose` for a request that may not see the detail (it names
   * reports and slots: the status page's access rule); undefined lets it through.
   */
  detailRefusal?: (
    req: IncomingMessage,
  ) => { status: number; body: string; headers: Record<string, string> } | undefined;
}

export async function startHealthServer(options: HealthOptions): Promise<HealthServer> {
  const hosts = { host: options.host ?? '0.0.0.0', names: options.allowedHosts ?? [] };
  const server: Server = createServer((req, res) => {
    // Probes too: kubelets and scrapers ask by IP address, which is always allowed.
    if (refuseForeign(req, res, hosts)) return;
    const [path, query = ''] = (req.url ?? '/').split('?');
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    if (path === '/healthz') return send(200, 'ok\n');
    if (path === '/readyz') {
      const refused = new URLSearchParams(query).has('verbose') ? options.detailRefusal?.(req) : undefined;
      if (refused) {
        res.writeHead(refused.status, {
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
          ...refused.headers,
        });
        res.end(req.method === 'HEAD' ? undefined : `${refused.body}\n`);
        return;
      }
      // A check that throws (the store refused the read) is a reason too, not a dropped request.
      void Promise.resolve()
        .then(() => options.notReadyReason())
        .catch((error: Error) => `readiness check failed: ${error.message}`)
        .then(async (reason) => {
          const head = reason ? `not ready: ${reason}\n` : 'ready\n';
          const verbose = options.readyDetail && new URLSearchParams(query).has('verbose');
          const detail = verbose
            ? await options.readyDetail!().then(
                (lines) => lines.map((line) => `${line}\n`).join(''),
                (error: Error) => `instances unreadable: ${scrub(error.message)}\n`,
              )
            : '';
          send(reason ? 503 : 200, head + detail);
        });
      return;
    }
    if (path === '/metrics') {
      options.registry
        .metrics()
        .then((text) => send(200, text, options.registry.contentType))
        .catch((error: Error) => {
          options.logger?.error({ err: error }, 'metrics collection failed');
          send(500, 'metrics collection failed\n');
        });
      return;
    }
    if (path && options.extra?.(req, res, path)) return;
    send(404, 'not found\n');
  });
  // Health probes are short; a slow client must not keep shutdown waiting.
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    port: address.port,
    url: `http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost}:${address.port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
