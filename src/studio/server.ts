import { randomBytes } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname } from 'node:path';
import type { Config } from '../config/index.js';
import { ORIENTATIONS, PAGE_SIZES } from '../config/paper.js';
import { REPORT_SECTIONS, type ReportSection } from '../config/report-sections.js';
import type { HttpAuthConfig } from '../config/schema.js';
import { UsageError } from '../errors/index.js';
import { escapeXml } from '../report/charts/svg.js';
import { checkTemplates, formatProblem } from '../report/check/templates-check.js';
import type { PageSetup } from '../report/page.js';
import type { PdfRenderer } from '../report/pdf.js';
import { challenge, isAuthorized, isLoopbackHost } from '../status/access.js';
import { refuseForeign } from '../status/allowed-hosts.js';
import { listenOrUndo } from './listen.js';
import { studioPage } from './page.js';
import { PreviewCache } from './preview-cache.js';
import { PrintCache } from './printed.js';
import { keyOf, refuseUnknownReport, selectionOf } from './selection.js';
import { type Preview, type Selection, type StudioSession, studioOptions } from './session.js';

/**
 * The studio's HTTP side: its page, the previews, the PDF, and a server-sent event stream that
 * tells the page when a watched file changed and whether the templates still render. A failed render
 * keeps the last good one on screen and says where the problem is (file:line:column, from
 * `templates check`).
 */

/** The preview documents' rules: nothing runs, nothing is fetched but data: images and fonts. */
const PREVIEW_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; base-uri 'none'; form-action 'none'; sandbox";

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
  configFile?: { path: string; load(): Config; apply(config: Config): void };
  renderer: () => Promise<PdfRenderer>;
}

export interface Studio {
  url: string;
  close(): Promise<void>;
}

interface State {
  version: number;
  error: string[] | null;
}

export async function startStudio(options: StudioOptions): Promise<Studio> {
  const auth: HttpAuthConfig | undefined = options.config.http.auth;
  if (!isLoopbackHost(options.host) && !auth) {
    throw new UsageError(
      `--host ${options.host} is not a loopback address: the studio shows the company's data, so it needs http.auth in the config (as the status page does)`,
    );
  }
  const state: State = { version: 1, error: null };
  // The config as last loaded (pickers list its reports and themes), and its problems while the file
  // on disk is invalid: those stay shown whatever renders meanwhile, until a valid file is read.
  let config = options.config;
  let configProblems: string[] | null = null;
  /** The last good render of each selection, and the files' version it was made at (LRU-bounded). */
  const good = new PreviewCache();
  const running = new Map<string, Promise<Preview | undefined>>();
  let current: Selection = {};
  const clients = new Set<ServerResponse>();
  const broadcast = () => {
    for (const client of clients) client.write(`data: ${JSON.stringify(state)}\n\n`);
  };

  /** Renders a selection; on failure keeps the last good render and records where it failed. */
  const render = async (selection: Selection) => {
    try {
      const preview = await options.session.preview(selection);
      good.set(keyOf(selection), { version: state.version, preview });
      if (state.error) state.error = configProblems;
      return preview;
    } catch (error) {
      state.error = explain(error, options.templatesDir ?? config.templates.dir, selection);
      return good.get(keyOf(selection))?.preview;
    }
  };

  /**
   * A selection's render at the files' current version: the document, email and payload requests a
   * refresh makes share one render (the change handler's, or the first request's).
   */
  const latest = (selection: Selection) => {
    const key = keyOf(selection);
    const made = good.get(key);
    if (made && made.version === state.version && state.error === configProblems)
      return Promise.resolve(made.preview);
    const tag = `${state.version}:${key}`;
    let pending = running.get(tag);
    if (!pending) {
      pending = render(selection).finally(() => running.delete(tag));
      running.set(tag, pending);
    }
    return pending;
  };

  // Printed on demand only, per files' version and selection: the live preview never waits for it.
  const prints = new PrintCache();
  const printed = (selection: Selection) =>
    prints.get(`${state.version}:${keyOf(selection)}`, async () =>
      options.session.pdf(selection, await options.renderer()),
    );

  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    // Editors write a file in several steps: one render once they are done.
    timer = setTimeout(async () => {
      const hadError = state.error !== null;
      const preview = await render(current);
      if (preview && state.error === configProblems) {
        state.version++;
        good.set(keyOf(current), { version: state.version, preview });
      }
      if (preview || hadError || state.error) broadcast();
    }, 60);
  };
  const watchers: FSWatcher[] = [];
  const watched = new Set<string>();
  const watchFolders = (of: Config) => {
    for (const dir of options.watch(of)) {
      if (watched.has(dir)) continue;
      watched.add(dir);
      watchers.push(watch(dir, { recursive: true }, changed));
    }
  };
  watchFolders(config);
  const configFile = options.configFile;
  if (configFile) {
    // The folder, not the file: editors save by writing a new file and renaming it over the old one.
    const name = basename(configFile.path);
    let configTimer: NodeJS.Timeout | undefined;
    const configChanged = () => {
      clearTimeout(configTimer);
      configTimer = setTimeout(() => {
        try {
          const next = configFile.load();
          configFile.apply(next);
          config = next;
          watchFolders(next);
          configProblems = null;
          state.error = null;
          changed();
        } catch (error) {
          // A config error lists each problem on a line of its own (path: message), never a stack.
          configProblems = String((error as Error).message ?? error)
            .split('\n')
            .filter((line) => line.trim() !== '');
          state.error = configProblems;
          broadcast();
        }
      }, 60);
    };
    watchers.push(
      watch(dirname(configFile.path), (_event, file) => {
        if (file === null || file === name) configChanged();
      }),
    );
  }

  const hosts = { host: options.host, names: options.allowedHosts ?? [] };
  const server = createServer(async (req, res) => {
    try {
      if (refuseForeign(req, res, hosts)) return;
      if (auth && !isAuthorized(req, auth)) {
        res.writeHead(401, { 'www-authenticate': challenge(auth) }).end('authentication required\n');
        return;
      }
      await route(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${(error as Error).message}\n`);
    }
  });

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://studio');
    const selection = selectionOf(url);
    if (refuseUnknownReport(res, url.pathname, selection, config)) return;
    const json = (value: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    switch (url.pathname) {
      case '/': {
        const nonce = randomBytes(16).toString('base64');
        res
          .writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; frame-src 'self'; img-src 'self' data:`,
          })
          .end(studioPage(nonce));
        return;
      }
      case '/api/options':
        return json(await studioOptions(options.session.store, config));
      case '/api/state':
        return json(state);
      case '/events':
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
        res.write(`data: ${JSON.stringify(state)}\n\n`);
        clients.add(res);
        req.on('close', () => clients.delete(res));
        return;
      case '/preview/doc':
      case '/preview/email': {
        current = selection;
        const hadError = state.error;
        const preview = await latest(selection);
        if (hadError !== state.error) broadcast();
        const body = preview
          ? url.pathname === '/preview/doc'
            ? preview.html
            : preview.email.html
          : `<!doctype html><pre>${escapeXml((state.error ?? ['nothing rendered yet']).join('\n'))}</pre>`;
        res
          .writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'content-security-policy': PREVIEW_CSP,
            'x-content-type-options': 'nosniff',
            'cache-control': 'no-store',
          })
          .end(body);
        return;
      }
      case '/api/messages': {
        const preview = await latest(selection);
        return json(
          preview
            ? { subject: preview.email.subject, text: preview.email.text, channels: preview.channels }
            : null,
        );
      }
      case '/api/pages': {
        // The printed PDF, page by page: how many images there are, or why there are none.
        const pages = await printed(selection)
          .then((p) => p.pages)
          .catch((error: Error) => error);
        if (pages instanceof Error) return json({ count: 0, error: pages.message });
        if (pages === null)
          return json({
            count: 0,
            note: 'pdftoppm (poppler-utils) is not installed: use Print PDF to see the pages',
          });
        return json({ count: pages.length });
      }
      case '/pdf': {
        const { pdf } = await printed(selection);
        const name = (selection.report ?? 'studio').replace(/[^\w.-]+/g, '_');
        res
          .writeHead(200, {
            'content-type': 'application/pdf',
            'content-disposition': `attachment; filename="${name}.pdf"`,
            'cache-control': 'no-store',
          })
          .end(pdf);
        return;
      }
      default: {
        const page = /^\/pages\/(\d+)\.png$/.exec(url.pathname);
        const png = page ? (await (await printed(selection)).pages)?.[Number(page[1]) - 1] : undefined;
        if (png) {
          res
            .writeHead(200, {
              'content-type': 'image/png',
              'x-content-type-options': 'nosniff',
              'cache-control': 'no-store',
            })
            .end(png);
          return;
        }
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      }
    }
  };

  await listenOrUndo(server, options.port, options.host, () => {
    for (const watcher of watchers) watcher.close();
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/`,
    async close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      for (const client of clients) client.end();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Where a failed render went wrong: the templates' problems with their positions, else the error. */
function explain(error: unknown, templatesDir: string | undefined, selection: Selection): string[] {
  const problems = checkTemplates({ templatesDir, locales: [selection.locale ?? 'en-US'] });
  if (problems.length > 0) return problems.map((problem) => formatProblem(problem));
  return [(error as Error).message ?? String(error)];
}
