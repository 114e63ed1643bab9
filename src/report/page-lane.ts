import type { Browser, BrowserContext, CDPSession, HTTPRequest, Page } from 'puppeteer';

/** One isolated browser context and its page, used by one render at a time. */
export interface Lane {
  context: BrowserContext;
  page: Page;
  /** Kept open to clear the context between documents without a session per clear. */
  session: CDPSession;
}

/** Requests the page may make: inline data only. Everything else (http, file, ws…) is aborted. */
export function isAllowedRequest(url: string): boolean {
  return url.startsWith('data:') || url === 'about:blank';
}

/** A fresh context and page with JavaScript off and every non-`data:` request aborted. */
export async function openLane(browser: Browser): Promise<Lane> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setRequestInterception(true);
    page.on('request', (request: HTTPRequest) => {
      if (request.isInterceptResolutionHandled()) return;
      if (isAllowedRequest(request.url())) void request.continue();
      else void request.abort('blockedbyclient');
    });
    return { context, page, session: await page.createCDPSession() };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Drops what a document left in its lane: the page goes blank (its DOM and images are freed) and the
 * context's cookies and HTTP cache are cleared. With JavaScript off and only `data:` URLs loaded, a
 * document has no other way to leave state behind (no storage writes, no service workers).
 */
export async function clearLane(lane: Lane): Promise<Lane> {
  await lane.page.goto('about:blank');
  await lane.session.send('Network.clearBrowserCookies');
  await lane.session.send('Network.clearBrowserCache');
  return lane;
}
