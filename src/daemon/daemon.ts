import { setMaxListeners } from 'node:events';
import { alertMessageBuilder, channelAlertBuilder } from '../alerts/deliver-alert.js';
import { runAlertPass } from '../alerts/run-alerts.js';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { channelSenders } from '../delivery/channels/index.js';
import type { ChannelSender } from '../delivery/channels/types.js';
import { enqueueDue } from '../delivery/due.js';
import { createSmtpMailer, type Mailer } from '../delivery/email.js';
import { type DeliveryRenderer, maxHoldFor, Outbox, type OutboxOptions } from '../delivery/outbox.js';
import { ReportdError } from '../errors/index.js';
import { type Logger, silentLogger } from '../log.js';
import { NoticeSender } from '../notify/notices.js';
import { IncidentWatch } from '../notify/watch.js';
import { renderConcurrency } from '../report/renderer-config.js';
import { lifecycleState } from '../schedule/lifecycle.js';
import { scrub } from '../secrets.js';
import { statusPageAccess } from '../status/access.js';
import { clusterLines, collectCluster } from '../status/cluster.js';
import { statusRoutes } from '../status/routes.js';
import { openStore, type Store } from '../store/db.js';
import { watchStoreFile } from '../store/file-watch.js';
import { lastFinishedSyncRun } from '../store/sync-runs.js';
import { accountBudget } from '../sync/account-budget.js';
import { runSync, type SyncOptions } from '../sync/sync.js';
import { type SyncSummary, syncOutcome } from '../sync/types.js';
import { type HealthServer, startHealthServer } from './http.js';
import { type Instance, startInstance } from './instance.js';
import { createMetrics, type DaemonMetrics } from './metrics.js';
import { enqueueNewRuns } from './new-runs.js';
import { Scheduler } from './scheduler.js';

/**
 * The long-running process: one scheduler (sync + reports), one outbox worker, the HTTP listener.
 * Everything it needs from outside (clock, mail transport, renderer, sync) can be injected, so tests
 * drive the real composition with a fake clock and a test SMTP server.
 */
export interface DaemonOptions {
  config: Config;
  clock?: Clock;
  logger?: Logger;
  store?: Store;
  mailer?: Mailer;
  /** Channel senders by name (default: from `config.channels`). */
  channels?: ReadonlyMap<string, ChannelSender>;
  /** Turns a delivery into files + headline; the real one renders with the report module and Chromium. */
  renderer?: DeliveryRenderer & { close?(): Promise<void> };
  /** One sync pass; defaults to `runSync` over the config's accounts. */
  sync?: (signal: AbortSignal) => Promise<SyncSummary>;
  /** Outbox tuning (tests shorten leases and backoff). */
  outbox?: Pick<
    OutboxOptions,
    'leaseMs' | 'sendLeaseMs' | 'maxHoldMs' | 'maxAttempts' | 'backoff' | 'worker'
  >;
  /** Longest idle wait of the outbox worker between looks at the table (ms, default 30 s). */
  pollMs?: number;
  /** Outbox worker loops, i.e. deliveries rendered at once (default `chromium.concurrency`'s value). */
  workerLoops?: number;
  /**
   * How long shutdown lets an SMTP exchange in flight get its answer (ms, default
   * `smtp.shutdown_grace_seconds`). Without one in flight the stop does not wait for it.
   */
  drainMs?: number;
}

/** The daemon could not start (the HTTP port is taken…); one line for the CLI. */
export class DaemonStartError extends ReportdError {
  override name = 'DaemonStartError' as const;
}

export interface Daemon {
  store: Store;
  outbox: Outbox;
  scheduler: Scheduler;
  /** This daemon's row of `instances`; its id names every claim and lease the daemon holds. */
  instance: Instance;
  metrics: DaemonMetrics;
  http?: HealthServer;
  /** Runs a sync pass now (then the new_run triggers), waiting for one already running first. */
  syncNow(): Promise<void>;
  /** Wakes the outbox worker (after an enqueue from outside the scheduler). */
  kick(): void;
  /** Stops everything; safe to call more than once (same promise). */
  close(): Promise<void>;
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { config } = options;
  // Checked before anything opens or listens, so a refusal leaves nothing to clean up.
  if (!options.mailer && [...config.reports, ...config.alerts].some((r) => r.email) && !config.smtp) {
    throw new DaemonStartError('reports or alerts send email but smtp is not configured');
  }
  // A missing or wrong browser is said in one line now, not at the first delivery hours later (where
  // it would only be retried until the attempts run out).
  if (!options.renderer && config.reports.length > 0) {
    const { findChromium } = await import('../report/chromium.js');
    findChromium({ configPath: config.chromium.path });
  }
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const ownsStore = !options.store;
  const store = options.store ?? (await openStore(config.store));
  const instance = await startInstance({
    store,
    clock,
    logger,
    roles: ['scheduler', 'sync', 'worker', ...(config.http.port !== undefined ? ['http'] : [])],
  });
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  // A store file deleted or replaced under the daemon stops all work (see file-watch.ts), said once
  // in the log and on every /readyz. Only a SQLite store is a file this process holds open.
  const storeFile = store.engine === 'sqlite' ? watchStoreFile(store.location) : undefined;
  let storeProblemLogged = false;
  const storeProblem = () => {
    const problem = storeFile?.problem();
    if (problem && !storeProblemLogged) {
      storeProblemLogged = true;
      logger.error({ store: store.location }, `${problem}; taking no more work`);
    }
    return problem;
  };
  const metrics = createMetrics({
    store,
    budgets: () =>
      config.accounts.map((account) => {
        // The sync's own builder: the same options for the key, whichever of the two asks first.
        const budget = accountBudget(account, { store, clock });
        return { account: account.name, used: budget.usedInWindow(), limit: budget.requests };
      }),
  });

  const mailer = options.mailer ?? (config.smtp ? createSmtpMailer(config.smtp) : undefined);
  const renderer = options.renderer ?? (await defaultRenderer(config, store, clock, logger));
  const watch = new IncidentWatch({ config, store, clock, logger });
  const channels = options.channels ?? channelSenders(config.channels);
  const notices = new NoticeSender({
    channels,
    store,
    mailer: mailer ?? { send: () => Promise.reject(new Error('no smtp configured')), close() {} },
    from: config.smtp?.from ?? 'reportd',
    clock,
    logger,
    worker: instance.id,
  });
  const outbox = new Outbox({
    store,
    renderer,
    mailer: mailer ?? { send: () => Promise.reject(new Error('no smtp configured')), close() {} },
    from: config.smtp?.from ?? 'reportd',
    reports: config.reports,
    channels,
    templatesDir: config.templates.dir,
    clock,
    logger,
    maxHoldMs: maxHoldFor(config.chromium.render_timeout_seconds * 1000),
    messageFor: alertMessageBuilder(store, config),
    channelAlertFor: channelAlertBuilder(store, config),
    worker: instance.id,
    ...options.outbox,
    onOutcome(outcome) {
      metrics.deliveryAttempts.inc({ result: outcome.result });
      metrics.channelAttempts.inc({ channel: outcome.destination ?? 'email', result: outcome.result });
      if (outcome.renderMs !== undefined) metrics.renderSeconds.observe(outcome.renderMs / 1000);
    },
  });

  // --- the outbox workers: drain, then sleep until the next retry/lease or a kick, at most pollMs.
  // `chromium.concurrency` independent loops, each claiming one row at a time through the outbox's
  // single-row claim, so up to that many deliveries render at once (the renderer's pages) and the
  // one-row-one-claim rule is untouched.
  const wakers = new Set<AbortController>();
  let kicks = 0;
  const kick = () => {
    kicks++;
    for (const waker of wakers) waker.abort();
  };
  const pollMs = options.pollMs ?? 30_000;
  const workerLoop = async () => {
    while (!abort.signal.aborted) {
      const seen = kicks;
      try {
        if (!storeProblem()) {
          await outbox.drain(abort.signal);
          // A delivery that just failed for good (or went out again) opens (or clears) its incident.
          await watch.reconcileDeliveries();
          await notices.drain(abort.signal);
        }
      } catch (error) {
        logger.error({ err: error }, 'outbox worker error');
      }
      if (abort.signal.aborted || kicks !== seen) continue;
      let due: number | undefined;
      try {
        due = earliest(await outbox.nextDueAt(), await notices.nextDueAt());
      } catch (error) {
        // The store refused the read: look again after pollMs rather than stop the worker.
        logger.error({ err: error }, 'outbox worker error');
      }
      // A kick while the reads above were awaited found no waker to abort: look again instead of
      // sleeping through it (up to pollMs) with a due row in the outbox.
      if (kicks !== seen) continue;
      const waitMs = Math.max(0, Math.min(pollMs, due === undefined ? pollMs : due - clock.now() + 1));
      const wake = new AbortController();
      wakers.add(wake);
      const stop = () => wake.abort();
      abort.signal.addEventListener('abort', stop, { once: true });
      await clock.sleep(waitMs, wake.signal).catch(() => {});
      abort.signal.removeEventListener('abort', stop);
      wakers.delete(wake);
    }
  };
  const workerLoops = options.workerLoops ?? renderConcurrency(config);
  const worker = Promise.all(Array.from({ length: Math.max(1, workerLoops) }, workerLoop)).then(
    () => undefined,
  );

  // --- the scheduler: sync on its cron (and at start), reports on theirs, triggers after each sync.
  const scheduler = new Scheduler({ store, clock, logger, instance: instance.id });
  const sync =
    options.sync ??
    ((signal: AbortSignal) => {
      const syncOptions: SyncOptions = {
        store,
        accounts: config.accounts,
        settings: config.sync,
        clock,
        signal,
        logger,
        // Every attempt, counted once, where the client classifies it.
        onRequest: (event) => metrics.apiRequests.inc({ outcome: event.outcome }),
      };
      return runSync(syncOptions);
    });
  // Paused reports are left out entirely: they never fire, whatever the store remembers of them.
  const liveReports = config.reports.filter((r) => r.enabled);
  const newRunReports = liveReports.filter((r) => r.trigger === 'new_run');
  scheduler.add({
    name: 'sync',
    cron: config.sync.schedule,
    timezone: 'UTC',
    runAtStart: true,
    async run({ signal }) {
      const problem = storeProblem();
      if (problem) throw new Error(problem);
      // Requests are counted by onRequest as they happen: a second count from the summary here
      // used to add every request of later passes again as "unclassified".
      const summary = await sync(signal);
      const outcome = syncOutcome(summary);
      metrics.syncPasses.inc({ outcome });
      if (await watch.afterSyncPass(summary, outcome)) kick();
      if (signal.aborted) throw signal.reason;
      let queued = 0;
      for (const report of newRunReports) {
        if (lifecycleState(report, 'UTC', clock.now()) !== 'active') continue;
        const results = await enqueueNewRuns(outbox, store, report, config.accounts);
        queued += results.filter((r) => r.created).length;
      }
      // Alerts read what this pass stored; a failed pass may still have stored new runs.
      const alerted = await runAlertPass({
        store,
        alerts: config.alerts,
        accounts: config.accounts,
        from: config.smtp?.from ?? 'reportd',
        now: clock.now(),
        logger,
      });
      queued += alerted.filter((r) => r.created).length;
      if (queued > 0) kick();
      if (outcome === 'failed') throw new Error(summary.errors[0]?.message ?? 'sync pass failed');
    },
  });
  for (const report of liveReports) {
    if (!report.schedule) continue;
    scheduler.add({
      name: `report:${report.name}`,
      cron: report.schedule.cron,
      timezone: report.schedule.timezone,
      lifecycle: report,
      async run() {
        const problem = storeProblem();
        if (problem) throw new Error(problem);
        const results = await enqueueDue(outbox, store, report, config.accounts);
        const fresh = results.filter((r) => r.created).length;
        logger.info(
          { report: report.name, queued: fresh, alreadyDelivered: results.length - fresh },
          'report due',
        );
        if (fresh > 0) kick();
      },
    });
  }

  let http: HealthServer | undefined;
  let storeOpen = true;
  if (config.http.port !== undefined) {
    const started = startHealthServer({
      port: config.http.port,
      host: config.http.host,
      registry: metrics.registry,
      logger,
      extra: statusRoutes({ config, store, clock, logger, storeOpen: () => storeOpen }),
      readyDetail: async () => clusterLines(await collectCluster(store, clock.now()), instance.id),
      async notReadyReason() {
        if (!storeOpen) return 'store closed';
        const problem = storeProblem();
        if (problem) return problem;
        const last = await lastFinishedSyncRun(store);
        if (!last) return 'no sync pass has finished yet';
        // Scrubbed again on the way out: a row written before error text was scrubbed at the store.
        if (last.outcome === 'failed') return `last sync failed: ${scrub(last.error ?? 'unknown error')}`;
        return undefined;
      },
    });
    try {
      http = await started;
    } catch (error) {
      // The port is taken (or the host wrong): undo what already started before failing.
      abort.abort(error);
      await worker;
      await instance.close();
      if (ownsStore) await store.close();
      await renderer.close?.();
      mailer?.close();
      throw new DaemonStartError(
        `cannot listen on ${config.http.host}:${config.http.port}: ${(error as Error).message}`,
      );
    }
    const page = statusPageAccess(config.http);
    logger.info({ url: http.url }, 'http listening (/healthz /readyz /metrics)');
    if (page.mode === 'off') logger.warn(page.reason);
  }
  scheduler.start();
  logger.info({ next: scheduler.nextRuns(), instance: instance.id }, 'daemon started');

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      logger.info('daemon stopping');
      const step = async (name: string, fn: () => unknown) => {
        try {
          await fn();
        } catch (error) {
          logger.error({ err: error, step: name }, 'shutdown step failed');
        }
      };
      abort.abort(new Error('daemon stopping'));
      // Sync requests and renders see the abort; an SMTP exchange in flight gets drainMs to finish.
      // Both wait side by side, so the stop takes the longer of the two, not their sum.
      await Promise.all([
        step('scheduler', () => scheduler.close()),
        step('outbox', () =>
          Promise.race([
            worker,
            new Promise((resolve) => setTimeout(resolve, shutdownGraceMs(options)).unref()),
          ]),
        ),
      ]);
      await step('renderer', () => renderer.close?.());
      await step('http', () => http?.close());
      await step('mailer', () => mailer?.close());
      await step('instance', () => instance.close());
      storeOpen = false;
      if (ownsStore) await step('store', () => store.close());
      logger.info('daemon stopped');
    })();
    return closing;
  };

  return {
    store,
    outbox,
    scheduler,
    instance,
    metrics,
    http,
    syncNow: () => scheduler.runNow('sync'),
    kick,
    close,
  };
}

/** See `DaemonOptions.drainMs`; the CLI's hard stop is this plus a margin. */
export function shutdownGraceMs(options: { config: Config; drainMs?: number }): number {
  return options.drainMs ?? (options.config.smtp?.shutdown_grace_seconds ?? 75) * 1000;
}

function earliest(...times: (number | undefined)[]): number | undefined {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}

async function defaultRenderer(config: Config, store: Store, clock: Clock, logger: Logger) {
  const { createReportRenderer } = await import('../delivery/render-delivery.js');
  return createReportRenderer({ config, store, clock, logger });
}
