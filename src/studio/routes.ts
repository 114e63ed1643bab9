import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeXml } from '../report/charts/svg.js';
import type { LiveRenders } from './live.js';
import { studioPage } from './page.js';
import { refuseUnknownReport, selectionOf } from './selection.js';
import { type Preview, type Selection, type StudioSession, studioOptions } from './session.js';

/**
 * The studio's paths, one small handler each: its page, the pickers' options, the state and its event
 * stream, the previews, the channel messages, the printed pages and the PDF. A path is answered
 * whatever the method (the page only ever GETs); an unknown one is 404.
 */

/** What a handler gets: the request, what it asks to see, and what the studio keeps. */
export interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  selection: Selection;
  live: LiveRenders;
  session: StudioSession;
}

type Handler = (request: Request) => Promise<void> | void;

/** The preview documents' rules: nothing runs, nothing is fetched but data: images and fonts. */
const PREVIEW_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; base-uri 'none'; form-action 'none'; sandbox";

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

/** The page, whose script alone may run: a nonce new on every load. */
function page({ res }: Request): void {
  const nonce = randomBytes(16).toString('base64');
  res
    .writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; frame-src 'self'; img-src 'self' data:`,
    })
    .end(studioPage(nonce));
}

async function options({ res, live, session }: Request): Promise<void> {
  json(res, await studioOptions(session.store, live.config));
}

function state({ res, live }: Request): void {
  json(res, live.state);
}

/** Server-sent events: the state now, and again whenever a file change re-renders or fails. */
function events({ req, res, live }: Request): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  res.write(`data: ${JSON.stringify(live.state)}\n\n`);
  live.listen(req, res);
}

/**
 * A preview document (the report, or the email's HTML part) under the preview's rules; the problems
 * instead while nothing has rendered. Asking makes the selection the one a file change re-renders.
 */
function preview(part: (preview: Preview) => string): Handler {
  return async ({ res, selection, live }) => {
    live.current = selection;
    const hadError = live.state.error;
    const made = await live.latest(selection);
    if (hadError !== live.state.error) live.broadcast();
    const body = made
      ? part(made)
      : `<!doctype html><pre>${escapeXml((live.state.error ?? ['nothing rendered yet']).join('\n'))}</pre>`;
    res
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': PREVIEW_CSP,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      })
      .end(body);
  };
}

/** The email's subject and text part, and each channel's payload. */
async function messages({ res, selection, live }: Request): Promise<void> {
  const made = await live.latest(selection);
  json(res, made ? { subject: made.email.subject, text: made.email.text, channels: made.channels } : null);
}

/** The printed PDF, page by page: how many images there are, or why there are none. */
async function pages({ res, selection, live }: Request): Promise<void> {
  const printed = await live
    .printed(selection)
    .then((p) => p.pages)
    .catch((error: Error) => error);
  if (printed instanceof Error) return json(res, { count: 0, error: printed.message });
  if (printed === null)
    return json(res, {
      count: 0,
      note: 'pdftoppm (poppler-utils) is not installed: use Print PDF to see the pages',
    });
  json(res, { count: printed.length });
}

async function pdf({ res, selection, live }: Request): Promise<void> {
  const { pdf } = await live.printed(selection);
  const name = (selection.report ?? 'studio').replace(/[^\w.-]+/g, '_');
  res
    .writeHead(200, {
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="${name}.pdf"`,
      'cache-control': 'no-store',
    })
    .end(pdf);
}

/** `/pages/<n>.png`: a printed page's image; anything else is not found. */
async function pageImageOrNotFound({ res, url, selection, live }: Request): Promise<void> {
  const page = /^\/pages\/(\d+)\.png$/.exec(url.pathname);
  const png = page ? (await (await live.printed(selection)).pages)?.[Number(page[1]) - 1] : undefined;
  if (!png) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    return;
  }
  res
    .writeHead(200, {
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    })
    .end(png);
}

const ROUTES = new Map<string, Handler>([
  ['/', page],
  ['/api/options', options],
  ['/api/state', state],
  ['/events', events],
  ['/preview/doc', preview((made) => made.html)],
  ['/preview/email', preview((made) => made.email.html)],
  ['/api/messages', messages],
  ['/api/pages', pages],
  ['/pdf', pdf],
]);

/**
 * Answers a request that passed the studio's Host, Origin and auth checks: a selection naming a
 * report the config does not have is refused (404) before any handler renders it.
 */
export async function route(
  req: IncomingMessage,
  res: ServerResponse,
  live: LiveRenders,
  session: StudioSession,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://studio');
  const selection = selectionOf(url);
  if (refuseUnknownReport(res, url.pathname, selection, live.config)) return;
  const handler = ROUTES.get(url.pathname) ?? pageImageOrNotFound;
  await handler({ req, res, url, selection, live, session });
}
