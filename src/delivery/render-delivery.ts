import { join } from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { type Logger, silentLogger } from '../log.js';
import { coveredBefore, coveredRuns, pairKey } from '../outbox/digest-rows.js';
import type { Delivery } from '../outbox/row.js';
import { type RenderedDigest, renderDigest } from '../report/digest/render.js';
import { safeFileName } from '../report/file-names.js';
import type { PdfRenderer } from '../report/pdf.js';
import { documentSettings, renderSnapshotDocuments, withBriefMovers } from '../report/render.js';
import { pdfRendererOptions } from '../report/renderer-config.js';
import { isReportable } from '../store/snapshot-state.js';
import { findSnapshot, listSnapshots } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
import { type EmailContent, formatOf, type ReportFile } from './content.js';
import { digestEmailContent, emailContentFor } from './headline.js';
import type { DeliveryRenderer } from './outbox-options.js';
import { documentOf, readerOf, SharedRenders } from './shared-renders.js';

/**
 * The production renderer of deliveries: the report module writes the files (PDF through one warm
 * Chromium, XLSX), and the view model it drew them from gives the email's headline. Chromium is closed after `idleMs`
 * without a render, because a daemon that mails once a week should not hold a browser all week. The
 * idle wait runs on the injected clock, so a test can prove it on a fake one.
 */
export function createReportRenderer(options: {
  config: Config;
  store: Store;
  clock: Clock;
  logger?: Logger;
  idleMs?: number;
}): DeliveryRenderer & { close(): Promise<void> } {
  const { config, store, clock } = options;
  const logger = options.logger ?? silentLogger;
  const browser = new IdleBrowser(
    // Puppeteer is imported at the first render, not when the daemon starts: an idle daemon never loads it.
    async () =>
      new (await import('../report/pdf.js')).PdfRenderer({
        // Resolved by findChromium, so REPORTD_CHROMIUM overrides the config as it does for `render`.
        ...pdfRendererOptions(config),
        handleSignals: false,
        logger,
      }),
    options.idleMs ?? 60_000,
    clock,
    logger,
  );
  // Teams webhooks carry no files: a card needs only headlines, so no browser and no folder for it.
  const isTeams = (channel: string) => config.channels.some((c) => c.name === channel && c.type === 'teams');
  const shared = new SharedRenders(logger);
  return {
    async render(delivery: Delivery, signal?: AbortSignal) {
      signal?.throwIfAborted();
      const found =
        delivery.kind === 'alert'
          ? alertAttachments(config, delivery.report)
          : config.reports.find((r) => r.name === delivery.report);
      if (!found) throw new Error(`report "${delivery.report}" is no longer in the config`);
      const reader = readerOf(config, found, delivery);
      const report = reader?.report ?? found;
      const digestRuns = coveredRuns(delivery);
      const teams = isTeams(reader?.row.channel ?? delivery.destination);
      const attempt: RenderAttempt = { config, store, clock, browser, delivery, report, teams, signal };
      const draw = () =>
        digestRuns ? renderDigestDelivery(attempt, digestRuns) : renderSetDelivery(attempt);
      if (!reader) return draw();
      // Rows with the same document (slice, locale, theme, formats, paper) and runs share one render.
      const key = await documentOf(store, found.name, delivery, reader.row, teams);
      return shared.get(key, (folder) => {
        attempt.folder = folder;
        return draw();
      });
    },
    close: () => browser.close(),
  };
}

/** What one render of one delivery works with. */
interface RenderAttempt {
  config: Config;
  store: Store;
  clock: Clock;
  browser: IdleBrowser;
  delivery: Delivery;
  report: ReportSettings;
  /** A Teams card: no browser is started and no document written for it (the models alone are built). */
  teams: boolean;
  signal: AbortSignal | undefined;
  /** A document shared by recipient rows: its own folder instead of the row's (shared-renders.ts). */
  folder?: string;
}

type ReportSettings = Pick<Config['reports'][number], 'name' | 'formats'> &
  Partial<Config['reports'][number]>;

/** A digest's documents, its runs marked when an earlier message of this report carried them. */
async function renderDigestDelivery(
  attempt: RenderAttempt,
  digestRuns: NonNullable<ReturnType<typeof coveredRuns>>,
): Promise<EmailContent> {
  const { store, report, delivery, teams, signal } = attempt;
  // Marked "no new run since …": runs an earlier message of this report already carried.
  const before = await coveredBefore(store, report.name, delivery);
  const runs = digestRuns.map((run) => ({ ...run, repeated: before.has(pairKey(run)) }));
  // Teams carries no files (as below for a set): the digest builds its models only.
  const rendered: RenderedDigest = await withRenderer(attempt, (renderer) =>
    untilAborted(
      renderDigest(store, {
        report: report.name,
        runs,
        formats: teams ? [] : report.formats,
        // One folder per digest and destination, for the reasons given below for per-set rows.
        ...documentOptions(attempt, `digest-${delivery.runId}`),
        renderer,
        generatedAt: new Date(attempt.clock.now()),
      }),
      signal,
    ),
  );
  // The headline of every set comes from the model its section was drawn from.
  return digestEmailContent(rendered.sets, reportFiles(rendered.paths), rendered.period);
}

/** One run of one set: its documents, and the model they were drawn from as the email's headline. */
async function renderSetDelivery(attempt: RenderAttempt): Promise<EmailContent> {
  const { store, report, delivery, teams, signal } = attempt;
  const account = delivery.account ?? undefined;
  const snapshot = await findSnapshot(store, {
    querySetId: delivery.querySetId,
    runId: delivery.runId,
    account,
  });
  if (!snapshot || !isReportable(snapshot.state)) {
    throw new Error(`run ${delivery.runId} of query set ${delivery.querySetId} is not stored complete`);
  }
  // The snapshot read above is the one rendered, and the model the render builds gives the email
  // its headline: one read of the payloads per delivery, one source for the numbers.
  const history = await listSnapshots(store, {
    querySetId: snapshot.querySet.id,
    account: snapshot.account,
  });
  // Shutdown must not wait for a render (up to render_timeout_seconds): the outbox hands the row
  // back on abort, and closing the renderer right after kills the page still printing.
  const rendered = await withRenderer(attempt, async (renderer) =>
    untilAborted(
      renderSnapshotDocuments(
        snapshot,
        history,
        await withBriefMovers(store, snapshot, {
          formats: teams ? [] : report.formats,
          // One folder per report and (set, run): file names come from API labels, which need not
          // be unique, and nodemailer reads attachments at send time, so a shared folder could let
          // a concurrent delivery (a second daemon, `reportd deliver`) swap another run's file in.
          ...documentOptions(attempt, `set-${delivery.querySetId}-run-${delivery.runId}`),
          renderer,
          generatedAt: new Date(attempt.clock.now()),
        }),
      ),
      signal,
    ),
  );
  return emailContentFor(snapshot, rendered.model, reportFiles(rendered.paths));
}

/**
 * Runs `work` with the warm browser (none for Teams), held until `work` settles. The launch is
 * waited for under the same abort as the render: shutdown cuts either.
 */
async function withRenderer<T>(
  attempt: RenderAttempt,
  work: (renderer: PdfRenderer | undefined) => Promise<T>,
): Promise<T> {
  const pdf = attempt.teams ? undefined : attempt.browser.acquire();
  try {
    return await work(pdf ? await untilAborted(pdf, attempt.signal) : undefined);
  } finally {
    if (pdf) attempt.browser.release();
  }
}

/** Where a delivery's files go (`folder` under the report's, per destination) and how they look. */
function documentOptions(attempt: RenderAttempt, folder: string) {
  const { config, report, delivery } = attempt;
  return {
    outDir: join(
      config.output.dir,
      safeFileName([report.name]),
      attempt.folder ?? `${folder}${destinationSuffix(delivery)}`,
    ),
    templatesDir: config.templates.dir,
    ...documentSettings(report),
    contents: { sections: report.sections, detail: report.detail },
  };
}

/** An alert's `attach: [pdf]` as the report-shaped settings the renderer takes (default paper and locale). */
function alertAttachments(config: Config, name: string): ReportSettings | undefined {
  const alert = config.alerts.find((a) => a.name === name);
  return alert && alert.attach.length > 0 ? { name: alert.name, formats: alert.attach } : undefined;
}

function reportFiles(paths: readonly string[]): ReportFile[] {
  return paths.flatMap((path) => {
    const format = formatOf(path);
    return format ? [{ path, format }] : [];
  });
}

/** Settles like `work`, or rejects with the abort reason as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    // An abort that came first (during the browser's launch) never fires its event again.
    if (signal.aborted) {
      work.catch(() => {});
      reject(signal.reason);
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // `work` keeps a handler either way, so its late rejection (the browser closed) is not unhandled.
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** One PdfRenderer while renders keep coming; closed after `idleMs` without one, relaunched on demand. */
class IdleBrowser {
  private current: Promise<PdfRenderer> | undefined;
  private users = 0;
  private idleWait: AbortController | undefined;
  /** Idle closes still running, so `close()` can wait for Chromium to be gone. */
  private readonly closing = new Set<Promise<void>>();

  constructor(
    private readonly create: () => Promise<PdfRenderer>,
    private readonly idleMs: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  acquire(): Promise<PdfRenderer> {
    this.idleWait?.abort();
    this.idleWait = undefined;
    this.users++;
    this.current ??= this.create();
    return this.current;
  }

  release(): void {
    this.users--;
    if (this.users > 0) return;
    const wait = new AbortController();
    this.idleWait = wait;
    this.clock.sleep(this.idleMs, wait.signal).then(
      () => {
        if (this.idleWait !== wait) return;
        this.idleWait = undefined;
        const idle = this.current;
        this.current = undefined;
        if (!idle) return;
        this.logger.debug('closing idle chromium'); // routine: not worth a line in every CLI run
        const closed = idle.then((renderer) => renderer.close()).finally(() => this.closing.delete(closed));
        this.closing.add(closed);
      },
      () => {}, // a render came first, or the renderer was closed
    );
  }

  async close(): Promise<void> {
    this.idleWait?.abort();
    this.idleWait = undefined;
    const current = this.current;
    this.current = undefined;
    await Promise.allSettled([current?.then((renderer) => renderer.close()), ...this.closing]);
  }
}

/**
 * Each destination of the same run or digest has its own row, possibly rendering in another process
 * at the same moment: its own folder, so one never reads the other's half-written file.
 */
function destinationSuffix(delivery: Delivery): string {
  return delivery.destination && delivery.destination !== 'email'
    ? `-${safeFileName([delivery.destination])}`
    : '';
}
