import type { IncomingMessage, RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/index.js';
import type { HttpAuthConfig } from '../config/schema.js';
import { UsageError } from '../errors/index.js';
import { createServer } from '../http-server.js';
import type { PdfRenderer } from '../report/pdf.js';
import { challenge, isAuthorized, isLoopbackHost } from '../status/access.js';
import { type HostRules, refuseForeign } from '../status/allowed-hosts.js';
import { listenOrUndo } from './listen.js';
import { type ConfigFile, LiveRenders } from './live.js';
import { route } from './routes.js';
import type { StudioSession } from './session.js';
import { StudioWatchers } from './watchers.js';

/**
 * The studio's HTTP side: its page, the previews, the PDF, and a server-sent event stream that
 * tells the page when a watched file changed and whether the templates still render (routes.ts
 * answers each path; live.ts keeps the renders; watchers.ts follows the files).
 */

export interface StudioOptions {
  session: StudioSession;
  config: Config;
  templatesDir?: string;
  host: string;
  port: number;
  /** `http.allowed_hosts` and `--allowed-host`: names besides the address requests may name. */
  allowedHosts?: readonly string[];
  /**
   * The folders whose changes re-render (templates, logos) under a config: asked again when the
   * config file is reloaded, so a report's new template folder is watched from then on.
   */
  watch: (config: Config) => readonly string[];
  /**
   * The config file, re-read when it is saved (reports' themes, sections, channels): a valid edit
   * re-renders, an invalid one is shown in the page (a line per problem) and the last good config stays.
   */
  configFile?: ConfigFile;
  renderer: () => Promise<PdfRenderer>;
}

export interface Studio {
  url: string;
  close(): Promise<void>;
}

export async function startStudio(options: StudioOptions): Promise<Studio> {
  const auth = options.config.http.auth;
  if (!isLoopbackHost(options.host) && !auth) {
    throw new UsageError(
      `--host ${options.host} is not a loopback address: the studio shows the company's data, so it needs http.auth in the config (as the status page does)`,
    );
  }
  const live = new LiveRenders(options, options.config);
  const watchers = new StudioWatchers(options.watch, () => live.changed());
  watchers.folders(options.config);
  const configFile = options.configFile;
  if (configFile)
    watchers.file(configFile.path, () => live.configSaved(configFile, (next) => watchers.folders(next)));
  const hosts = { host: options.host, names: options.allowedHosts ?? [] };
  const server = createServer(guarded(hosts, auth, (req, res) => route(req, res, live, options.session)));
  await listenOrUndo(server, options.port, options.host, () => watchers.close());
  return {
    url: urlOf(server, options.host),
    async close() {
      watchers.close();
      live.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The checks every request passes before any route: its Host and Origin, then the credentials when
 * http.auth is set. A route that throws answers 500 with its message.
 */
function guarded(
  hosts: HostRules,
  auth: HttpAuthConfig | undefined,
  answer: (...args: Parameters<RequestListener>) => Promise<void>,
): RequestListener {
  return async (req: IncomingMessage, res) => {
    try {
      if (refuseForeign(req, res, hosts)) return;
      if (auth && !isAuthorized(req, auth)) {
        res.writeHead(401, { 'www-authenticate': challenge(auth) }).end('authentication required\n');
        return;
      }
      await answer(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${(error as Error).message}\n`);
    }
  };
}

/** The address the server listens on, as a URL a browser opens (an IPv6 address in brackets). */
function urlOf(server: Server, listenHost: string): string {
  const { port } = server.address() as AddressInfo;
  const host = listenHost.includes(':') ? `[${listenHost}]` : listenHost;
  return `http://${host}:${port}/`;
}
