import type { Browser } from 'puppeteer-core';
import { RendererClosedError, RenderTimeoutError } from '../errors/index.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { type BrowserSlot, endBrowser, launchBrowser, offerLane, takeLane } from './browser-slot.js';
import { findChromium } from './chromium.js';
import { DEFAULT_PAGE, type PageSetup } from './page.js';
import { clearLane, type Lane, mayScheduleNavigation, openLane, withoutScreenLayout } from './page-lane.js';
import { finishPdf } from './pdf-ua/finish-pdf.js';
import { Permits } from './permits.js';

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
   * Documents printing at once (config `chromium.concurrency`), each in a browser process of its own;
   * further renders wait their turn, and their deadline starts when they get a page. Default 1.
   */
  concurrency?: number;
  /**
   * Let puppeteer close the browser on SIGINT/SIGTERM/SIGHUP (default true). A daemon with its own
   * shutdown sets false and calls `close()`; the browser is killed on process exit either way.
   */
  handleSignals?: boolean;
  /**
   * End the browsers with SIGKILL instead of a graceful close, for a command that exits right after
   * `close()` (`reportd render`). A daemon leaves it off: see `endBrowser`.
   */
  killOnClose?: boolean;
  logger?: Logger;
}

export interface PdfOptions {
  headerTemplate?: string;
  footerTemplate?: string;
  /** Paper and orientation (config `reports[].page`); A4 portrait when absent. */
  page?: PageSetup;
  /**
   * When the document was made (the render's clock, as its pages print it): the PDF's creation and
   * modification dates, so the same document at the same clock is the same file. The print's own
   * time when absent.
   */
  date?: Date;
}

/**
 * HTML → PDF with warm Chromiums and up to `concurrency` documents printing at once, each in a browser
 * process of its own (the pool grows to `concurrency` browsers as renders overlap). With the full
 * `chromium`, two browsers printed 15–20 % more per minute than two pages of one (its browser
 * process's share of every print, ~80 ms of ~300 ms CPU, is serial); with the headless shell the two
 * were even (82–89 against 85–93 ms per report on 2 cores), and a browser of its own per render
 * keeps a crash or hang to that render's browser.
 * Every page has JavaScript off and request interception that aborts every request except `data:`,
 * so a report cannot reach the network whatever its data contains. A page serves one document at a
 * time: the next document replaces the last (a document that may have scheduled a refresh is navigated
 * away from first, while the browser's other page prints the next: see clearLane and SPARE_LANES); a
 * page whose render failed is closed, never reused.
 * Reusing cleared pages instead of creating a context per document, and clearing off the critical
 * path, is what makes back-to-back renders cost what a warm one does. A browser is
 * recycled after `recycleAfter` renders, after a timeout (once the renders still running on it are
 * done), or when it crashes; `close()` ends them all, and is the same promise however often it is
 * called.
 */
export class PdfRenderer {
  private readonly timeoutMs: number;
  private readonly recycleAfter: number;
  private readonly logger: Logger;
  private readonly permits: Permits;
  private executablePath: string | undefined;
  /** The live browsers, at most `concurrency`; retired ones move to `retiring`. */
  private slots: BrowserSlot[] = [];
  private readonly retiring = new Set<BrowserSlot>();
  /** Lane clears and context closes still running in the background. */
  private readonly pending = new Set<Promise<void>>();
  private closed: Promise<void> | null = null;
  /** Browsers launched so far (for tests and metrics). */
  launches = 0;
  /** Browser contexts created so far (for tests and the benchmark). */
  contexts = 0;

  constructor(private readonly options: PdfRendererOptions = {}) {
    this.timeoutMs = options.renderTimeoutMs ?? 60_000;
    this.recycleAfter = Math.max(1, options.recycleAfter ?? 50);
    this.logger = options.logger ?? silentLogger;
    this.executablePath = options.executablePath;
    this.permits = new Permits(Math.max(1, options.concurrency ?? 1));
  }

  /** Documents that print at once. */
  get concurrency(): number {
    return this.permits.limit;
  }

  /**
   * Starts `browsers` browsers (and their first pages) now, without waiting: a caller that knows
   * renders are coming overlaps Chromium's start-up with its own work (reading the store, building
   * the HTML). One by default: a single report must not pay for a second Chromium starting beside it.
   */
  warmUp(browsers = 1): void {
    if (this.closed) return;
    while (this.slots.length < Math.min(browsers, this.concurrency)) {
      this.launch().browser.catch(() => undefined); // a failed launch is retried, and said, by render()
    }
  }

  async render(html: string, pdf: PdfOptions = {}): Promise<Buffer> {
    if (this.closed) throw new RendererClosedError('the PDF renderer is closed');
    let printed: Buffer;
    await this.permits.acquire();
    try {
      if (this.closed) throw new RendererClosedError('the PDF renderer is closed');
      printed = await this.renderOnce(html, pdf);
    } finally {
      this.permits.release();
    }
    // After the permit and outside the deadline, once a render waiting for the permit has sent its
    // document (its continuation runs before a macrotask): Chromium prints that one while this thread
    // finishes this one (bounded work, about a millisecond a page), instead of waiting for it.
    await new Promise((resolve) => setImmediate(resolve));
    const finished = await finishPdf(printed, { date: pdf.date });
    if (!finished)
      this.logger.warn('the printed PDF could not be made PDF/UA-1; it is kept as Chromium wrote it');
    return finished ?? printed;
  }

  private async renderOnce(html: string, pdf: PdfOptions): Promise<Buffer> {
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
      // A hung or crashed browser is not trusted with the next report. Renders still running on it
      // finish first (the browser is shut when the last one is done), so a hang fails alone.
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
    const lane = await takeLane(slot, () => this.prepareLane(slot, browser));
    let reusable = false;
    try {
      await lane.page.setContent(withoutScreenLayout(html), { waitUntil: 'load', timeout: this.timeoutMs });
      if (timedOut()) throw new RenderTimeoutError('PDF render timed out');
      const header = pdf.headerTemplate !== undefined || pdf.footerTemplate !== undefined;
      const paper = pdf.page ?? DEFAULT_PAGE;
      const bytes = await lane.page.pdf({
        // Always tagged: the structure is what screen readers and text extraction use. Leaving it out
        // saved about a fifth of Chromium's CPU per print and half the file, but a report must stay
        // readable to everyone it is sent to (PDF/UA: finishPdf completes what Chromium leaves out).
        tagged: true,
        // Bookmarks from the headings (h1 a set, h2 its sections…), built by Chromium from the tagged
        // structure: PDF/UA asks for them, and they cost no measurable time on top of the tagging.
        outline: true,
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
      });
      reusable = !timedOut();
      return Buffer.from(bytes);
    } finally {
      // Off the critical path: the caller has its PDF before a page that needs it is cleared.
      this.giveBack(slot, lane, reusable, mayScheduleNavigation(html));
    }
  }

  /**
   * Returns a lane for the next render, at once (its next `setContent` replaces the document), or once
   * it has navigated away from a document that may have scheduled a refresh (`navigate`, see
   * clearLane); or closes it: after a failure, or when its browser is being recycled.
   */
  private giveBack(slot: BrowserSlot, lane: Lane, reusable: boolean, navigate: boolean): void {
    if (!reusable || slot.retired || this.closed) {
      this.closeLane(slot, lane);
      return;
    }
    if (!navigate) {
      offerLane(slot, Promise.resolve(lane), { ready: true }); // the next document replaces this one
      return;
    }
    const cleared = clearLane(lane).catch(async (error: unknown) => {
      this.closeLane(slot, lane);
      throw error;
    });
    this.track(cleared);
    offerLane(slot, cleared);
  }

  /** A fresh isolated lane (counted, for tests and the benchmark). */
  private prepareLane(slot: BrowserSlot, browser: Browser, initialTab = false): Promise<Lane> {
    this.contexts++;
    slot.lanes++;
    const lane = openLane(browser, { initialTab });
    lane.catch(() => slot.lanes--);
    return lane;
  }

  private closeLane(slot: BrowserSlot, lane: Lane): void {
    slot.lanes--;
    this.track(lane.close());
  }

  private track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  /**
   * The browser for the next render: an idle one, else a new one while the pool has fewer than
   * `concurrency`, else the least busy (only while a retired browser still finishes its renders).
   */
  private acquire(): BrowserSlot {
    const idlest = this.slots.reduce<BrowserSlot | undefined>(
      (best, slot) => (best === undefined || slot.inFlight < best.inFlight ? slot : best),
      undefined,
    );
    if (idlest && (idlest.inFlight === 0 || this.slots.length >= this.concurrency)) return idlest;
    return this.launch();
  }

  private launch(): BrowserSlot {
    this.executablePath ??= findChromium({ configPath: this.options.chromiumPath });
    this.launches++;
    const slot: BrowserSlot = {
      renders: 0,
      inFlight: 0,
      retired: false,
      idle: [],
      lanes: 0,
      browser: Promise.resolve(null as never),
    };
    const launching = new AbortController();
    slot.launching = launching;
    slot.browser = launchBrowser({
      executablePath: this.executablePath,
      handleSignals: this.options.handleSignals ?? true,
      protocolTimeoutMs: this.timeoutMs + 10_000,
      signal: launching.signal,
    }).then((browser) => {
      slot.launching = undefined;
      // The first render's page (the tab Chromium opened) is made ready while the caller still
      // builds its HTML.
      const first = this.prepareLane(slot, browser, true);
      this.track(first);
      offerLane(slot, first);
      browser.once('disconnected', () => {
        if (!slot.retired)
          this.logger.warn({ renders: slot.renders }, 'chromium disconnected; relaunching on next render');
        this.retire(slot);
      });
      return browser;
    });
    // A failed launch must not stick: the next render tries again.
    slot.browser.catch(() => {
      slot.launching = undefined;
      this.retire(slot);
    });
    this.slots.push(slot);
    return slot;
  }

  private retire(slot: BrowserSlot): void {
    if (slot.retired) return;
    slot.retired = true;
    this.slots = this.slots.filter((live) => live !== slot);
    this.retiring.add(slot);
    if (slot.inFlight === 0) void this.shut(slot);
  }

  private shut(slot: BrowserSlot): Promise<void> {
    // A browser still starting is ended, not waited for: its launch would hold `close()` (and a
    // `deliver` stopped by Ctrl+C mid-render) until puppeteer gives up on it, up to the protocol
    // timeout (the render timeout plus 10 s), then as long again for the Browser.close it sends.
    slot.launching?.abort(new RendererClosedError('the PDF renderer is closed'));
    slot.closing ??= slot.browser
      .then((browser) => endBrowser(browser, { kill: this.options.killOnClose === true }))
      .catch(() => undefined)
      .finally(() => this.retiring.delete(slot));
    return slot.closing;
  }

  /**
   * Resolves once the background work between renders (clearing the last page, preparing the first
   * one) is done: a render started then pays for nothing but itself.
   */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Closes every browser this renderer started. Idempotent: every call returns the same promise. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      for (const slot of this.slots) this.retire(slot);
      // Browsers first: work still pending on them (a context closing, a spare being prepared) then
      // fails at once instead of waiting out the protocol timeout on a wedged Chromium.
      await Promise.allSettled([...this.retiring].map((slot) => this.shut(slot)));
      await Promise.allSettled([...this.pending]);
    })();
    return this.closed;
  }
}
