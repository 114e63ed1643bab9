import { join } from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { type Logger, silentLogger } from '../log.js';
import { safeFileName } from '../report/file-names.js';
import { PdfRenderer } from '../report/pdf.js';
import { renderReport } from '../report/render.js';
import type { Store } from '../store/db.js';
import type { DeliveryRow } from '../store/deliveries.js';
import { findSnapshot } from '../store/snapshots.js';
import { formatOf, type ReportFile } from './email.js';
import { headlineKpis, headlineSummary } from './headline.js';
import type { DeliveryRenderer } from './outbox.js';

/**
 * The production renderer of deliveries: the report module writes the files (PDF through one warm
 * Chromium, XLSX), the stored payloads give the email's headline. Chromium is closed after `idleMs`
 * without a render, because a daemon that mails once a week should not hold a browser all week.
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
    () =>
      new PdfRenderer({
        executablePath: config.chromium.path,
        renderTimeoutMs: config.chromium.render_timeout_seconds * 1000,
        recycleAfter: config.chromium.recycle_after,
        handleSignals: false,
        logger,
      }),
    options.idleMs ?? 60_000,
    logger,
  );
  return {
    async render(delivery: DeliveryRow) {
      const report = config.reports.find((r) => r.name === delivery.report);
      if (!report) throw new Error(`report "${delivery.report}" is no longer in the config`);
      const account = delivery.account ?? undefined;
      const snapshot = findSnapshot(store, {
        querySetId: delivery.query_set_id,
        runId: delivery.run_id,
        account,
      });
      if (snapshot?.state !== 'complete') {
        throw new Error(
          `run ${delivery.run_id} of query set ${delivery.query_set_id} is not stored complete`,
        );
      }
      const pdf = browser.acquire();
      let paths: string[];
      try {
        paths = await renderReport(store, {
          querySetId: delivery.query_set_id,
          runId: delivery.run_id,
          account,
          formats: report.formats,
          // One folder per report, so two reports of one run never overwrite each other's files.
          outDir: join(config.output.dir, safeFileName([report.name])),
          templatesDir: config.templates.dir,
          renderer: pdf,
          generatedAt: new Date(clock.now()),
        });
      } finally {
        browser.release();
      }
      const files: ReportFile[] = paths.flatMap((path) => {
        const format = formatOf(path);
        return format ? [{ path, format }] : [];
      });
      return {
        brand: snapshot.brand.name || `query set ${snapshot.querySet.id}`,
        querySet: { id: snapshot.querySet.id, name: snapshot.querySet.name },
        run: { id: snapshot.run.id, display_name: snapshot.run.display_name },
        kpis: headlineKpis(snapshot.payloads),
        summary: headlineSummary(snapshot.payloads),
        files,
      };
    },
    close: () => browser.close(),
  };
}

/** One PdfRenderer while renders keep coming; closed after `idleMs` without one, relaunched on demand. */
class IdleBrowser {
  private current: PdfRenderer | undefined;
  private users = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly create: () => PdfRenderer,
    private readonly idleMs: number,
    private readonly logger: Logger,
  ) {}

  acquire(): PdfRenderer {
    clearTimeout(this.timer);
    this.users++;
    this.current ??= this.create();
    return this.current;
  }

  release(): void {
    this.users--;
    if (this.users > 0) return;
    this.timer = setTimeout(() => {
      const idle = this.current;
      this.current = undefined;
      if (idle) this.logger.debug('closing idle chromium');
      void idle?.close();
    }, this.idleMs);
    this.timer.unref();
  }

  close(): Promise<void> {
    clearTimeout(this.timer);
    const current = this.current;
    this.current = undefined;
    return current?.close() ?? Promise.resolve();
  }
}
