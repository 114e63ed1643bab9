import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/sql.js';
import { accessRefusal, statusPageAccess } from './access.js';
import { latestFiles } from './downloads.js';
import { renderStatusPage, statusView } from './page.js';

/**
 * `GET /` (the status page) and `GET /download/<report index>/<pdf|xlsx>` (the latest rendered file)
 * on the daemon's listener. Returns false for any other path, which the health server answers; the
 * answer to a path it takes may come later (the page reads the store).
 * Downloads are addressed by the report's position in the config, so no report name is ever needed
 * in a URL, and no answer of a listener without access names one.
 */
export type ExtraRoute = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

// No script may run, nothing may be loaded from elsewhere, and no other site may frame the page.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export function statusRoutes(options: {
  config: Config;
  store: Store;
  clock: Clock;
  logger?: Logger;
  /** False once the store is closed (during shutdown): the page answers 503 instead of throwing. */
  storeOpen: () => boolean;
}): ExtraRoute {
  const { config } = options;
  const access = statusPageAccess(config.http);
  return (req, res, path) => {
    const download = /^\/download\/(\d+)\/(pdf|xlsx)$/.exec(path);
    if (path !== '/' && !download) return false;
    const text = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...PAGE_HEADERS, ...headers });
      res.end(req.method === 'HEAD' ? undefined : `${body}\n`);
    };
    const refused = accessRefusal(access, req);
    if (refused) {
      text(refused.status, refused.body, refused.headers);
      return true;
    }
    if (!options.storeOpen()) {
      text(503, 'stopping');
      return true;
    }
    const failed = (error: unknown) => {
      options.logger?.error({ err: error }, 'status page failed');
      if (!res.headersSent) text(500, 'status page failed (see the daemon log)');
      else res.destroy();
    };
    if (!download) {
      void statusView({ config, store: options.store, now: options.clock.now() })
        .then((view) => {
          const html = renderStatusPage(view);
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS });
          res.end(req.method === 'HEAD' ? undefined : html);
        })
        .catch(failed);
      return true;
    }
    try {
      const report = config.reports[Number(download[1])];
      const file = report && latestFiles(config.output.dir, report).find((f) => f.format === download[2]);
      if (!file) {
        text(404, 'no such file');
        return true;
      }
      res.writeHead(200, {
        ...PAGE_HEADERS,
        'content-type':
          file.format === 'pdf'
            ? 'application/pdf'
            : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        // RFC 6266 / 5987: the UTF-8 name percent-encoded, and a plain ASCII fallback.
        'content-disposition': `attachment; filename="${file.name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      });
      if (req.method === 'HEAD') res.end();
      else
        createReadStream(file.path)
          .on('error', () => res.destroy())
          .pipe(res);
    } catch (error) {
      failed(error);
    }
    return true;
  };
}
