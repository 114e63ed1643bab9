import type { Browser, HTTPRequest, Page } from 'puppeteer-core';

/** One page with JavaScript off and request interception, used by one render at a time. */
export interface Lane {
  page: Page;
  /** Ends the lane: its own browser context, or the page itself for the browser's first tab. */
  close(): Promise<void>;
}

/** Requests the page may make: inline data only. Everything else (http, file, ws…) is aborted. */
export function isAllowedRequest(url: string): boolean {
  return url.startsWith('data:') || url === 'about:blank';
}

/**
 * A lane for `browser`. The first lane of a browser is the tab Chromium opened at launch (its renderer
 * process is already up, which saves a cold `reportd render` the 0.3–0.6 s of a new context and page);
 * every further lane gets a browser context of its own, so no two pages printing at once share
 * cookies, cache or storage.
 */
export async function openLane(browser: Browser, options: { initialTab?: boolean } = {}): Promise<Lane> {
  if (options.initialTab) {
    const [tab] = await browser.pages();
    if (tab) return guard(tab, () => tab.close());
  }
  const context = await browser.createBrowserContext();
  try {
    return await guard(await context.newPage(), () => context.close());
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/** JavaScript off and every non-`data:` request aborted, before any document is loaded. */
async function guard(page: Page, close: () => Promise<void>): Promise<Lane> {
  await page.setJavaScriptEnabled(false);
  await page.setRequestInterception(true);
  page.on('request', (request: HTTPRequest) => {
    if (request.isInterceptResolutionHandled()) return;
    if (isAllowedRequest(request.url())) void request.continue();
    else void request.abort('blockedbyclient');
  });
  return { page, close };
}

/** Applies only on screen, so a print (which switches to the print medium) lays the document out as written. */
const NO_SCREEN_LAYOUT = '<style media="screen">html{display:none!important}</style>';

/**
 * The document as the lane loads it: not laid out, painted or rasterised for the screen, which nobody
 * sees. Without this, Chromium lays a report out twice (for the 800×600 screen at load, then for the
 * paper at print) and rasterises the first screenful on its compositor threads; with it, a report
 * cost ~18 % less Chromium CPU and its setContent 12 ms instead of 34, with text and pixels of the
 * PDF unchanged (pdftotext, pdftoppm). Web fonts and backgrounds (data: URLs) still print: the print
 * loads what its layout needs. Right after `<head>`, so it applies before the parser reaches the
 * body; the first `<head>` is always the template's own (API strings are escaped, so data cannot
 * write one). A document without `<head>` is loaded as it is.
 */
export function withoutScreenLayout(html: string): string {
  const head = /<head(?:\s[^>]*)?>/i.exec(html);
  if (!head) return html;
  const at = head.index + head[0].length;
  return html.slice(0, at) + NO_SCREEN_LAYOUT + html.slice(at);
}

/**
 * Whether a document can have scheduled something that outlives it: a `<meta http-equiv="refresh">`
 * is the one thing a page with JavaScript off and only `data:` loads can schedule, and it survives
 * the next `setContent` (document.open does not cancel it). An attribute name is never written with
 * character references, so a document without the text `http-equiv` has no such element; one that
 * merely mentions it gets the full clear too, which costs time, not safety. A refresh inside an
 * iframe dies with the iframe when the document is replaced.
 */
export function mayScheduleNavigation(html: string): boolean {
  return /http-equiv/i.test(html);
}

/**
 * Takes a lane away from a document that may have scheduled a refresh (see mayScheduleNavigation):
 * a navigation to about:blank cancels it (a refresh left behind fired in the middle of the next
 * document). Every other document is simply replaced by the next `setContent`, which frees its DOM and
 * images: with JavaScript off and only `data:` URLs loaded, a document has no other way to leave
 * state behind (no timers, storage writes or service workers), and nothing can fill the context's
 * cookies or HTTP cache (no script, every network request aborted, Chromium ignores
 * `<meta http-equiv="set-cookie">`). Clearing every lane between documents (an empty `setContent`,
 * then cookies and cache) cost Chromium CPU on every report for nothing it could find, and kept two
 * pages (two renderer processes) a browser alternating where one serves.
 */
export async function clearLane(lane: Lane): Promise<Lane> {
  await lane.page.goto('about:blank');
  return lane;
}
