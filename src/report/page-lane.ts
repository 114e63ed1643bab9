import type { Browser, CDPSession, HTTPRequest, Page } from 'puppeteer-core';

/** One page with JavaScript off and request interception, used by one render at a time. */
export interface Lane {
  page: Page;
  /** Kept open to clear the page's state between documents without a session per clear. */
  session: CDPSession;
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
  return { page, session: await page.createCDPSession(), close };
}

/**
 * Drops what a document left in its lane: the page goes blank (its DOM and images are freed, and
 * anything it scheduled, such as a `<meta http-equiv="refresh">`, dies with it) and the context's
 * cookies and HTTP cache are cleared. With JavaScript off and only `data:` URLs loaded, a document
 * has no other way to leave state behind (no storage writes, no service workers). Replacing the DOM
 * with the next `setContent` alone is not enough: a refresh scheduled by the last document fired
 * in the middle of the next one.
 */
export async function clearLane(lane: Lane): Promise<Lane> {
  await lane.page.goto('about:blank');
  await lane.session.send('Network.clearBrowserCookies');
  await lane.session.send('Network.clearBrowserCache');
  return lane;
}
