import puppeteer, { type Browser, type BrowserContext, type HTTPRequest, type Page } from 'puppeteer';
import { ReportdError } from '../errors/index.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { CHROMIUM_ARGS, findChromium } from './chromium.js';
import { DEFAULT_PAGE, type PageSetup } from './page.js';

/** A render that did not finish before its deadline; the browser it used is recycled. */
export class RenderTimeoutError extends ReportdError {
  override name = 'RenderTimeoutError' as const;
}

/** `render` after `close()`. */
export class RendererClosedError extends ReportdError {
  override name = 'RendererClosedError' as const;
}

export interface PdfRendererOptions {
  /** Browser binary, used as is. When absent, `findChromium()` decides (REPORTD_CHROMIUM first). */
  executablePath?: string;
  /** Config `chromium.path`: what `findChromium()` uses when REPORTD_CHROMIUM is not set. */
  chromiumPath?: string;
  /** Deadline per render (config `chromium.render_timeout_seconds`). Default 60 s. */
  renderTimeoutMs?: number;
  /** Relaunch the browser after this many renders (config `chromium.recycle_after`). Default 50. */
  recycleAfter?: number;
  /**
   * Let puppeteer close the browser on SIGINT/SIGTERM/SIGHUP (default true). A daemon with its own
   * shutdown sets false and calls `close()`; the browser is killed on process exit either way.
   */
  handleSignals?: boolean;
  logger?: Logger;
}

export interface PdfOptions {
  headerTemplate?: string;
  footerTemplate?: string;
  /** Paper and orientation (config `reports[].page`); A4 portrait when absent. */
  page?: PageSetup;
  /**
   * PDF bookmarks from the document's headings (h1 a set, h2 its sections…). Chromium builds the
   * outline from the tagged structure, so this also asks for a tagged PDF.
   */
  outline?: boolean;
}

interface PreparedPage {
  context: BrowserContext;
  page: Page;
}

interface BrowserSlot {
  browser: Promise<Browser>;
  /** The next render's context and page, prepared in the background. */
  spare?: Promise<PreparedPage>;
  renders: number;
  inFlight: number;
  retired: boolean;
  closing?: Promise<void>;
}

/** Requests the page may make: inline data only. Everything else (http, file, ws…) is aborted. */
export function isAllowedRequest(url: string): boolean {
  return url.startsWith('data:') || url === 'about:blank';
}

/**
 * HTML → PDF with one warm Chromium. Each render gets a fresh browser context (no shared cookies,
 * cache or storage), JavaScript off, and request interception that aborts every request except
 * `data:`, so a report cannot reach the network whatever its data contains. The browser is recycled
 * after `recycleAfter` renders, after a timeout, or when it crashes; `close()` ends it, and is the same
 * promise however often it is called.
 */
export class PdfRenderer {
  private readonly timeoutMs: number;
  private readonly recycleAfter: number;
  private readonly logger: Logger;
  private executablePath: string | undefined;
  private slot: BrowserSlot | null = null;
  private readonly retiring = new Set<BrowserSlot>();
  /** Context closes still running in the background. */
  private readonly pending = new Set<Promise<void>>();
  private closed: Promise<void> | null = null;
  /** Browsers launched so far (for tests and metrics). */
  launches = 0;

  constructor(private readonly options: PdfRendererOptions = {}) {
    this.timeoutMs = options.renderTimeoutMs ?? 60_000;
    this.recycleAfter = Math.max(1, options.recycleAfter ?? 50);
    this.logger = options.logger ?? silentLogger;
    this.executablePath = options.executablePath;
  }

  async render(html: string, pdf: PdfOptions = {}): Promise<Buffer> {
    if (this.closed) throw new RendererClosedError('the PDF renderer is closed');
    const slot = this.acquire();
    slot.inFlight++;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      const work = this.renderIn(slot, html, pdf, () => timedOut);
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(new RenderTimeoutError(`PDF render took longer than ${this.timeoutMs / 1000} s`));
        }, this.timeoutMs);
      });
      return await Promise.race([work, deadline]);
    } catch (error) {
      // A hung or crashed browser is not trusted with the next report.
      if (timedOut || !(await slot.browser.then((b) => b.connected).catch(() => false))) this.retire(slot);
      throw error;
    } finally {
      clearTimeout(timer);
      slot.inFlight--;
      slot.renders++;
      if (slot.renders >= this.recycleAfter) this.retire(slot);
      if (slot.retired && slot.inFlight === 0) void this.shut(slot);
    }
  }

  private async renderIn(
    slot: BrowserSlot,
    html: string,
    pdf: PdfOptions,
    timedOut: () => boolean,
  ): Promise<Buffer> {
    const browser = await slot.browser;
    const { context, page } = await this.takePage(slot, browser);
    try {
      await page.setContent(html, { waitUntil: 'load', timeout: this.timeoutMs });
      if (timedOut()) throw new RenderTimeoutError('PDF render timed out');
      const header = pdf.headerTemplate !== undefined || pdf.footerTemplate !== undefined;
      const paper = pdf.page ?? DEFAULT_PAGE;
      const bytes = await page.pdf({
        format: paper.size,
        landscape: paper.orientation === 'landscape',
        printBackground: true,
        displayHeaderFooter: header,
        headerTemplate: pdf.headerTemplate ?? '<span></span>',
        footerTemplate: pdf.footerTemplate ?? '<span></span>',
        margin: header
          ? { top: '16mm', bottom: '14mm', left: '14mm', right: '14mm' }
          : { top: '12mm', bottom: '12mm', left: '14mm', right: '14mm' },
        timeout: this.timeoutMs,
        ...(pdf.outline ? { outline: true, tagged: true } : {}),
      });
      return Buffer.from(bytes);
    } finally {
      // Off the critical path: the caller has its PDF; close() still waits for this. The next
      // render's page is prepared only once this one is done, so on two cores its setup never
      // competes with a render for CPU (measured: preparing it during the render made renders 1.6×
      // slower than preparing it after).
      this.track(context.close().finally(() => this.prepareSpare(slot, browser)));
    }
  }

  /**
   * A fresh context and page with JavaScript off and every non-`data:` request aborted. Creating them
   * costs about as much as printing a small report, so one is prepared ahead, between renders (each
   * is still used for exactly one render).
   */
  private async takePage(slot: BrowserSlot, browser: Browser): Promise<PreparedPage> {
    // A spare that failed to prepare is not fatal: this render prepares its own.
    const prepared = slot.spare?.catch(() => this.preparePage(browser)) ?? this.preparePage(browser);
    slot.spare = undefined;
    return prepared;
  }

  /** Prepares the next render's page unless one is ready or this browser is about to be recycled. */
  private prepareSpare(slot: BrowserSlot, browser: Browser): void {
    if (slot.spare || slot.retired || this.closed) return;
    if (slot.renders + slot.inFlight >= this.recycleAfter) return;
    const spare = this.preparePage(browser);
    this.track(spare);
    slot.spare = spare;
  }

  private async preparePage(browser: Browser): Promise<PreparedPage> {
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
      return { context, page };
    } catch (error) {
      this.track(context.close());
      throw error;
    }
  }

  private track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  private acquire(): BrowserSlot {
    if (this.slot && !this.slot.retired) return this.slot;
    this.executablePath ??= findChromium({ configPath: this.options.chromiumPath });
    const handleSignals = this.options.handleSignals ?? true;
    this.launches++;
    const slot: BrowserSlot = {
      renders: 0,
      inFlight: 0,
      retired: false,
      browser: Promise.resolve(null as never),
    };
    slot.browser = puppeteer
      .launch({
        executablePath: this.executablePath,
        headless: true,
        // A pipe instead of a websocket: when this process dies, even by SIGKILL, the pipe closes and
        // Chromium exits on its own instead of living on as an orphan.
        pipe: true,
        args: [...CHROMIUM_ARGS],
        handleSIGINT: handleSignals,
        handleSIGTERM: handleSignals,
        handleSIGHUP: handleSignals,
        protocolTimeout: this.timeoutMs + 10_000,
      })
      .then((browser) => {
        this.prepareSpare(slot, browser);
        browser.once('disconnected', () => {
          if (!slot.retired)
            this.logger.warn({ renders: slot.renders }, 'chromium disconnected; relaunching on next render');
          this.retire(slot);
        });
        return browser;
      });
    // A failed launch must not stick: the next render tries again.
    slot.browser.catch(() => this.retire(slot));
    this.slot = slot;
    return slot;
  }

  private retire(slot: BrowserSlot): void {
    if (slot.retired) return;
    slot.retired = true;
    if (this.slot === slot) this.slot = null;
    this.retiring.add(slot);
    if (slot.inFlight === 0) void this.shut(slot);
  }

  private shut(slot: BrowserSlot): Promise<void> {
    slot.closing ??= slot.browser
      .then(async (browser) => {
        // close() asks Chromium to quit; if it does not, kill the process so nothing is left behind.
        await Promise.race([
          browser.close(),
          new Promise((resolve) => setTimeout(resolve, 5_000).unref()),
        ]).catch(() => undefined);
        browser.process()?.kill('SIGKILL');
      })
      .catch(() => undefined)
      .finally(() => this.retiring.delete(slot));
    return slot.closing;
  }

  /**
   * Resolves once the background work between renders (closing the last context, preparing the next
   * page) is done: a render started then pays for nothing but itself.
   */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Closes every browser this renderer started. Idempotent: every call returns the same promise. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.slot) this.retire(this.slot);
      // Browsers first: work still pending on them (a context closing, a spare being prepared) then
      // fails at once instead of waiting out the protocol timeout on a wedged Chromium.
      await Promise.allSettled([...this.retiring].map((slot) => this.shut(slot)));
      await Promise.allSettled([...this.pending]);
    })();
    return this.closed;
  }
}
