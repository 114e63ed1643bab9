import { setMaxListeners } from 'node:events';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { channelSenders } from '../delivery/channels/index.js';
import type { ChannelSender } from '../delivery/channels/types.js';
import { createSmtpMailer, type Mailer } from '../delivery/email.js';
import type { DeliveryRenderer, Outbox, OutboxOptions } from '../delivery/outbox.js';
import { createOutbox } from '../delivery/runtime.js';
import { DaemonStartError } from '../errors/index.js';
import { type Logger, silentLogger } from '../log.js';
import { IncidentWatch } from '../notify/watch.js';
import { renderConcurrency } from '../report/renderer-config.js';
import { openStore, type Store } from '../store/db.js';
import { storeClock } from '../store/db-clock.js';
import { watchStoreFile } from '../store/file-watch.js';
import { accountBudget } from '../sync/account-budget.js';
import { runSync, type SyncOptions } from '../sync/sync.js';
import type { SyncSummary } from '../sync/types.js';
import { accountShare } from './account-share.js';
import { DefinitionWatch } from './definition-watch.js';
import type { HealthServer } from './http.js';
import { type Instance, startInstance } from './instance.js';
import { createMetrics, type DaemonMetrics } from './metrics.js';
import { reportFingerprints } from './report-fingerprint.js';
import { RoleHealth } from './role-health.js';
import type { RoleContext } from './roles/context.js';
import { startHttpRole } from './roles/http.js';
import { DAEMON_ROLES, type DaemonRole } from './roles/names.js';
import { addReportSchedules } from './roles/scheduler.js';
import { addSyncRole } from './roles/sync.js';
import { startWorkerRole, type WorkerRole } from './roles/worker.js';
import { Scheduler } from './scheduler.js';
import { StoreOutageWatch } from './store-outage.js';

/**
 * The long-running process, composed of roles (roles/): `sync` and `scheduler` add their jobs to
 * one cron scheduler, `worker` drains the outbox, `http` listens. Which roles run comes from
 * `options.roles`, else `daemon.roles` (default all). Everything it needs from outside (clock, mail
 * transport, renderer, sync) can be injected, so tests drive the real composition with a fake clock
 * and a test SMTP server.
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
  /** The roles to run (default `config.daemon.roles`, i.e. all of them). */
  roles?: Iterable<DaemonRole>;
  /** Where the loops report their cycles (tests read it; default a fresh one). */
  health?: RoleHealth;
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
  const roles = new Set(options.roles ?? config.daemon.roles);
  const runs = (role: DaemonRole) => roles.has(role);
  // Checked before anything opens or listens, so a refusal leaves nothing to clean up.
  const sends = runs('worker');
  if (
    sends &&
    !options.mailer &&
    [...config.reports, ...config.alerts].some((r) => r.email) &&
    !config.smtp
  ) {
    throw new DaemonStartError('reports or alerts send email but smtp is not configured');
  }
  // Asked for by name (not all roles, the default) without a port: it would silently serve nothing.
  if (runs('http') && roles.size < DAEMON_ROLES.length && config.http.port === undefined) {
    throw new DaemonStartError('the http role needs http.port in the config');
  }
  // A missing or wrong browser is said in one line now, not at the first delivery hours later (where
  // it would only be retried until the attempts run out).
  if (sends && !options.renderer && config.reports.length > 0) {
    const { findChromium } = await import('../report/chromium.js');
    findChromium({ configPath: config.chromium.path });
  }
  const logger = options.logger ?? silentLogger;
  const ownsStore = !options.store;
  let lastConnectionWarning = Number.NEGATIVE_INFINITY;
  const store =
    options.store ??
    (await openStore(config.store, {
      // A server restart closes every idle connection at once: one line for them, not one each.
      onConnectionError(error) {
        if (Date.now() - lastConnectionWarning < 10_000) return;
        lastConnectionWarning = Date.now();
        logger.warn(
          { code: (error as { code?: string }).code, err: error.message },
          'store connection lost; reconnecting at the next query',
        );
      },
    }));
  // On PostgreSQL every time shared with other hosts comes from the database's clock (db-clock.ts);
  // a clock injected by a test is used as given.
  const dbClock = options.clock ? undefined : await storeClock(store, { logger });
  const clock: Clock = options.clock ?? dbClock ?? systemClock;
  const health = options.health ?? new RoleHealth(clock);
  // The roles as they will run (http only with a port): what `status` shows of this instance.
  const instance = await startInstance({
    store,
    clock,
    logger,
    clockSkewMs: () => (dbClock && store.engine === 'postgres' ? dbClock.skewMs() : null),
    roles: DAEMON_ROLES.filter((role) => runs(role) && (role !== 'http' || config.http.port !== undefined)),
  });
  // Only a daemon that fires or sends reports serves their definitions (a sync-only one does neither).
  const definitions = new DefinitionWatch({
    store,
    clock,
    logger,
    instance: instance.id,
    fingerprints: runs('scheduler') || runs('worker') ? reportFingerprints(config) : new Map(),
  });
  try {
    await definitions.start();
  } catch (error) {
    await instance.close();
    if (ownsStore) await store.close();
    throw error;
  }
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
  // Only a worker renders: Chromium is never looked for (nor, being lazy, launched) without one.
  const renderer: DeliveryRenderer & { close?(): Promise<void> } =
    options.renderer ?? (sends ? await defaultRenderer(config, store, clock, logger) : { render: noRender });
  const watch = new IncidentWatch({ config, store, clock, logger });
  const channels = options.channels ?? channelSenders(config.channels);
  // Every role enqueues through the outbox (the Message-ID is fixed there); only the worker drains it.
  const outbox = createOutbox(config, {
    store,
    renderer,
    ...(mailer ? { mailer } : {}),
    channels,
    clock,
    logger,
    worker: instance.id,
    tuning: {
      // A store that cannot answer holds nothing back here: the claim that follows fails the same way.
      held: () => definitions.check().catch(() => definitions.heldNow()),
      ...options.outbox,
      onOutcome(outcome) {
        metrics.deliveryAttempts.inc({ result: outcome.result });
        metrics.channelAttempts.inc({ channel: outcome.destination ?? 'email', result: outcome.result });
        if (outcome.renderMs !== undefined) metrics.renderSeconds.observe(outcome.renderMs / 1000);
      },
    },
  });

  // Told directly, not through the outbox: the outbox is in the store that is down.
  const outage = new StoreOutageWatch({
    config,
    clock,
    logger,
    probe: () => instance.beat(),
    mailer,
    channels,
  });
  outage.start();

  let worker: WorkerRole | undefined;
  const ctx: RoleContext = {
    config,
    store,
    clock,
    logger,
    signal: abort.signal,
    storeProblem,
    metrics,
    outbox,
    watch,
    health,
    kick: () => worker?.kick(),
  };
  if (sends) {
    worker = startWorkerRole(ctx, {
      pollMs: options.pollMs ?? config.daemon.poll_seconds * 1000,
      loops: options.workerLoops ?? renderConcurrency(config),
    });
  }

  // --- the cron scheduler: the sync role's job and the scheduler role's report jobs.
  const scheduler = new Scheduler({ store, clock, logger, instance: instance.id, health });
  if (runs('sync')) addSyncRole(ctx, scheduler, options.sync ?? defaultSync(ctx));
  if (runs('scheduler')) addReportSchedules(ctx, scheduler);

  let http: HealthServer | undefined;
  let storeOpen = true;
  if (runs('http') && config.http.port !== undefined) {
    try {
      http = await startHttpRole(ctx, {
        port: config.http.port,
        storeOpen: () => storeOpen,
        instance: instance.id,
        storeWritable: () => instance.beat(),
      });
    } catch (error) {
      // The port is taken (or the host wrong): undo what already started before failing.
      abort.abort(error);
      definitions.close();
      await outage.close();
      await worker?.stopped;
      await instance.close();
      if (ownsStore) await store.close();
      await renderer.close?.();
      mailer?.close();
      throw new DaemonStartError(
        `cannot listen on ${config.http.host}:${config.http.port}: ${(error as Error).message}`,
      );
    }
  }
  scheduler.start();
  logger.info({ roles: [...roles], next: scheduler.nextRuns(), instance: instance.id }, 'daemon started');

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
            worker?.stopped,
            new Promise((resolve) => setTimeout(resolve, shutdownGraceMs(options)).unref()),
          ]),
        ),
      ]);
      await step('store outage watch', () => outage.close());
      await step('renderer', () => renderer.close?.());
      await step('http', () => http?.close());
      await step('mailer', () => mailer?.close());
      definitions.close();
      await step('instance', () => instance.close());
      storeOpen = false;
      dbClock?.close();
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
    kick: ctx.kick,
    close,
  };
}

/** One sync pass over the config's accounts, each request counted in the metrics as it is classified. */
function defaultSync(ctx: RoleContext) {
  const { config, store, clock, logger, metrics } = ctx;
  return (signal: AbortSignal) => {
    const syncOptions: SyncOptions = {
      store,
      accounts: config.accounts,
      settings: config.sync,
      clock,
      signal,
      logger,
      // Every attempt, counted once, where the client classifies it.
      onRequest: (event) => metrics.apiRequests.inc({ outcome: event.outcome }),
      // Other daemons with the sync role on this store take their share of the accounts.
      share: accountShare(store, clock),
    };
    return runSync(syncOptions);
  };
}

/** The renderer of a daemon without the worker role: its outbox only enqueues, never renders. */
function noRender(): never {
  throw new Error('this daemon does not run the worker role');
}

/** See `DaemonOptions.drainMs`; the CLI's hard stop is this plus a margin. */
export function shutdownGraceMs(options: { config: Config; drainMs?: number }): number {
  return options.drainMs ?? (options.config.smtp?.shutdown_grace_seconds ?? 75) * 1000;
}

async function defaultRenderer(config: Config, store: Store, clock: Clock, logger: Logger) {
  const { createReportRenderer } = await import('../delivery/render-delivery.js');
  return createReportRenderer({ config, store, clock, logger });
}
