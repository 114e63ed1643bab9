import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runAlertPass } from '../alerts/run-alerts.js';
import { type Clock, systemClock } from '../clock.js';
import { configFromObject } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { DeliveryMessage } from '../delivery/compose/message.js';
import { writeEml } from '../delivery/eml.js';
import { digestEmailContent } from '../delivery/headline.js';
import type { DeliveryRenderer } from '../delivery/outbox-options.js';
import { composeForPreview, renderedAlready } from '../delivery/preview.js';
import { ReportdError } from '../errors/index.js';
import { writeMetricValuesCsv } from '../export/export.js';
import { type Logger, silentLogger } from '../log.js';
import { coversKey } from '../outbox/digest-rows.js';
import { EMAIL_DESTINATION, unsavedDelivery } from '../outbox/row.js';
import { renderDigest } from '../report/digest/render.js';
import { PdfRenderer } from '../report/pdf.js';
import { type RenderedSnapshot, renderReportDocuments } from '../report/render.js';
import { SANDBOX_IDS } from '../sandbox/dataset.js';
import { startSandbox } from '../sandbox/server.js';
import { openStore } from '../store/db.js';
import { setsWithReportableSnapshots } from '../store/snapshot-counts.js';
import type { StoredSnapshot } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
import { runSync } from '../sync/sync.js';
import type { SyncProgress, SyncSummary } from '../sync/types.js';

export interface DemoOptions {
  outDir: string;
  /** Locale of the documents (`REPORT_LOCALES`); en-US by default. The README picture uses de-DE too. */
  locale?: string;
  onProgress?: (progress: SyncProgress) => void;
  logger?: Logger;
}

export interface DemoResult {
  sync: SyncSummary;
  files: string[];
  email: string;
  /** `metric_values.csv`: every number of the synced snapshots as tidy rows. */
  metrics: string;
  /** `visibility-drop.eml`: the alert the published movement run caused. */
  alertEmail: string;
}

/**
 * The sandbox's rate window in the demo: the same 120 requests, in 5 s instead of 60 s, so the demo
 * ends in well under a minute. The budget logic is the real one; only the window is shorter.
 */
const DEMO_RATE = { requests: 120, windowSeconds: 5 };
const DEMO_FROM = 'AI Visibility Reports <reports@example.com>';
/** The example config's alert (config/reportd.example.yaml), on the set the demo publishes to. */
const DEMO_ALERT = {
  name: 'visibility-drop',
  query_sets: [SANDBOX_IDS.sets.main],
  rules: [
    { metric: 'presence.gross', change: '<= -5' },
    { metric: 'life.kpi', value: '< 45' },
    { event: 'new_error' as const },
    { event: 'competitor_overtakes' as const },
    { event: 'classification_change' as const },
  ],
  email: { to: ['cmo@example.com'] },
};
const DEMO_REPORT = {
  name: 'weekly-executive',
  email: { to: ['ceo@example.com'], cc: [], bcc: [] },
  max_attachment_mb: 10,
};

/**
 * Everything reportd does, with no credentials and no config: the sandbox in-process on a free port,
 * a temporary store, one sync pass, a PDF and a workbook for every query set with published runs, and
 * the weekly email as an `.eml` file. The temporary store is removed afterwards.
 */
/** One sync pass of the demo's config; a pass with an error ends the demo with it. */
async function syncOrFail(
  store: Store,
  config: ReturnType<typeof demoConfig>,
  options: Pick<DemoOptions, 'logger' | 'onProgress'>,
) {
  const summary = await runSync({
    store,
    accounts: config.accounts,
    settings: config.sync,
    logger: options.logger ?? silentLogger,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  if (summary.errors.length > 0) {
    throw new ReportdError(`demo sync failed: ${summary.errors[0]?.message ?? 'unknown problem'}`);
  }
  return summary;
}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const outDir = resolve(options.outDir);
  const sandbox = await startSandbox({
    port: 0,
    rate: { requests: DEMO_RATE.requests, windowMs: DEMO_RATE.windowSeconds * 1000 },
  });
  const work = mkdtempSync(join(tmpdir(), 'reportd-demo-'));
  let store: Store | undefined;
  // One clock for every message of the demo: the alert's and the digest's Date headers come from it.
  const clock = systemClock;
  const renderer = new PdfRenderer({ logger: options.logger });
  try {
    const config = demoConfig(sandbox.baseUrl, sandbox.apiKey, sandbox.apiSecret, work, outDir);
    store = await openStore(config.store);
    const sync = await syncOrFail(store, config, options);
    // The alert's first look records the history; then the sandbox publishes a run with a presence
    // drop and a new false claim, and a second pass stores it: that run is what the alert is about.
    const alertPass = () =>
      runAlertPass({
        store: store!,
        alerts: config.alerts,
        accounts: config.accounts,
        from: DEMO_FROM,
        now: clock.now(),
      });
    await alertPass();
    sandbox.publishRun(SANDBOX_IDS.sets.main, { movement: true });
    await syncOrFail(store, config, { logger: options.logger });
    const [queued] = await alertPass();
    if (!queued) throw new ReportdError('demo: the published run tripped no alert rule');
    // The alert row as the outbox would compose it (the same composer, the demo's clock).
    const alertEmail = await writeEml(
      await emailOf(await composeForPreview(queued.delivery, { config, store, renderer: noRender, clock })),
      join(outDir, `${DEMO_ALERT.name}.eml`),
    );
    const rendered: (RenderedSnapshot & { snapshot: StoredSnapshot })[] = [];
    for (const querySetId of await setsWithReportableSnapshots(store)) {
      rendered.push(
        await renderReportDocuments(store, {
          querySetId,
          formats: ['pdf', 'xlsx'],
          outDir,
          renderer,
          locale: options.locale,
        }),
      );
    }
    if (rendered.length === 0) throw new ReportdError('demo: the sandbox published no run to report on');
    const { email, digest } = await writeDemoEmail(
      { store, config, clock },
      rendered.map((set) => set.snapshot),
      outDir,
      renderer,
      options.locale,
    );
    const metrics = await writeMetricValuesCsv(store, outDir);
    return { sync, files: [...rendered.flatMap((set) => set.paths), ...digest], email, metrics, alertEmail };
  } finally {
    await renderer.close();
    await store?.close();
    await sandbox.close();
    rmSync(work, { recursive: true, force: true });
  }
}

function demoConfig(
  baseUrl: string,
  apiKey: string,
  apiSecret: string,
  work: string,
  outDir: string,
): Config {
  return configFromObject(
    {
      accounts: [
        {
          name: 'sandbox',
          base_url: baseUrl,
          api_key: apiKey,
          api_secret: apiSecret,
          rate_limit: { requests: DEMO_RATE.requests, window_seconds: DEMO_RATE.windowSeconds },
        },
      ],
      store: { path: join(work, 'reportd.sqlite') },
      // Two runs a set: enough for the workbook's run history, few enough for a one-minute demo.
      sync: { backfill_runs: 2 },
      output: { dir: outDir },
      smtp: { host: 'localhost', from: DEMO_FROM },
      alerts: [DEMO_ALERT],
    },
    work,
  );
}

/**
 * The weekly report's message, written as a file instead of mailed: a digest of every set (one PDF
 * with the portfolio page, contents and bookmarks), so a newcomer sees first what a report over
 * several sets sends.
 */
async function writeDemoEmail(
  at: { store: Store; config: Config; clock: Clock },
  snapshots: readonly StoredSnapshot[],
  outDir: string,
  renderer: PdfRenderer,
  locale?: string,
): Promise<{ email: string; digest: string[] }> {
  const runs = snapshots.map((snapshot) => ({
    account: snapshot.account,
    querySetId: snapshot.querySet.id,
    runId: snapshot.run.id,
  }));
  const digest = await renderDigest(at.store, {
    report: DEMO_REPORT.name,
    runs,
    formats: ['pdf'],
    outDir,
    renderer,
    locale,
  });
  // The weekly executive email carries the digest PDF; analysts get the workbooks from the folder.
  // The headline comes from the models the digest was drawn from: the payloads are not read again.
  const content = digestEmailContent(
    digest.sets,
    digest.paths.map((path) => ({ path, format: 'pdf' as const })),
    digest.period,
  );
  const row = unsavedDelivery(
    {
      report: DEMO_REPORT.name,
      destination: EMAIL_DESTINATION,
      querySetId: 0,
      runId: 0,
      account: null,
      messageId: `<demo-digest-${snapshots.map((snapshot) => snapshot.run.id).join('-')}@reportd.local>`,
      covers: coversKey(runs),
    },
    at.clock.now(),
  );
  const message = await composeForPreview(row, {
    ...at,
    renderer: renderedAlready(content),
    reports: [{ ...DEMO_REPORT, locale }],
  });
  return {
    email: await writeEml(await emailOf(message), join(outDir, `${DEMO_REPORT.name}.eml`)),
    digest: digest.paths,
  };
}

/** The email of a composed message (every demo message has one). */
async function emailOf(message: DeliveryMessage) {
  if (!message.email) throw new ReportdError(`demo: the ${message.event} message has no email`);
  return (await message.email()).message;
}

/** The demo's alert attaches nothing, so its composer never renders. */
const noRender: DeliveryRenderer = {
  render: () => Promise.reject(new ReportdError('demo: the alert was not to render a report')),
};
