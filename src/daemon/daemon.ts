import { setMaxListeners } from 'node:events';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { channelSenders } from '../delivery/channels/index.js';
import type { ChannelSender } from '../delivery/channels/types.js';
import { createSmtpMailer, type Mailer } from '../delivery/destinations/smtp-mailer.js';
import type { DeliveryRenderer, OutboxOptions } from '../delivery/outbox-options.js';
import type { Outbox } from '../delivery/outbox-worker.js';
import { createOutbox } from '../delivery/runtime.js';
import { DaemonStartError } from '../errors/index.js';
import { type Logger, silentLogger } from '../log.js';
import { IncidentWatch } from '../notify/watch.js';
import { renderConcurrency } from '../report/renderer-config.js';
import type { Store } from '../store/sql.js';
import { runSync } from '../sync/sync.js';
import type { SyncOptions } from '../sync/sync-options.js';
import type { SyncSummary } from '../sync/types.js';
import { accountShare } from './account-share.js';
import { type Foundation, layFoundation, refuseBadStart, storeProblemWatch } from './foundation.js';
import type { HealthServer } from './http.js';
import type { Instance } from './instance.js';
import { configMetrics, type DaemonMetrics } from './metrics.js';
import type { RoleHealth } from './role-health.js';
import type { RoleContext } from './roles/context.js';
import { startHttpRole } from './roles/http.js';
import type { DaemonRole } from './roles/names.js';
import { addReportSchedules } from './roles/scheduler.js';
import { addSyncRole } from './roles/sync.js';
import { startWorkerRole, type WorkerRole } from './roles/worker.js';
import { Scheduler } from './scheduler.js';
import { type RunningDaemon, shutdownGraceMs, stopDaemon } from './shutdown.js';
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
  await refuseBadStart(config, roles, options);
  const logger = options.logger ?? silentLogger;
  const foundation = await layFoundation({ ...options, roles, logger });
  const { store, clock, health, instance } = foundation;
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  const storeProblem = storeProblemWatch(store, logger);
  const metrics = configMetrics(config, store, clock, { serves: runs('http') });
  const { mailer, renderer, channels, outbox, watch } = await deliveryPieces(options, foundation, {
    logger,
    metrics,
    sends: runs('worker'),
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

  const { ctx, worker, scheduler } = startRoles(
    { config, store, clock, logger, signal: abort.signal, storeProblem, metrics, outbox, watch, health },
    { options, runs, instance: instance.id },
  );

  let storeOpen = true;
  const running: Omit<RunningDaemon, 'http'> = {
    foundation,
    logger,
    abort,
    scheduler,
    worker,
    outage,
    renderer,
    mailer,
    graceMs: shutdownGraceMs(options),
    markStoreClosed: () => {
      storeOpen = false;
    },
  };
  const http = runs('http') ? await startHttpOrUndo(ctx, running, () => storeOpen) : undefined;
  scheduler.start();
  logger.info({ roles: [...roles], next: scheduler.nextRuns(), instance: instance.id }, 'daemon started');

  let closing: Promise<void> | undefined;
  return {
    store,
    outbox,
    scheduler,
    instance,
    metrics,
    http,
    syncNow: () => scheduler.runNow('sync'),
    kick: ctx.kick,
    close: () => {
      closing ??= stopDaemon({ ...running, http });
      return closing;
    },
  };
}

/**
 * The roles that work on a schedule or a queue: the worker (with the worker role) drains the outbox;
 * the cron scheduler carries the sync role's job and the scheduler role's report jobs.
 */
function startRoles(
  shared: Omit<RoleContext, 'kick'>,
  {
    options,
    runs,
    instance,
  }: { options: DaemonOptions; runs: (role: DaemonRole) => boolean; instance: string },
): { ctx: RoleContext; worker: WorkerRole | undefined; scheduler: Scheduler } {
  const { config, store, clock, logger, health } = shared;
  let worker: WorkerRole | undefined;
  const ctx: RoleContext = { ...shared, kick: () => worker?.kick() };
  if (runs('worker')) {
    worker = startWorkerRole(ctx, {
      pollMs: options.pollMs ?? config.daemon.poll_seconds * 1000,
      loops: options.workerLoops ?? renderConcurrency(config),
    });
  }
  const scheduler = new Scheduler({ store, clock, logger, instance, health });
  if (runs('sync')) addSyncRole(ctx, scheduler, options.sync ?? defaultSync(ctx));
  if (runs('scheduler')) addReportSchedules(ctx, scheduler);
  return { ctx, worker, scheduler };
}

/**
 * The outbox every role enqueues through (the Message-ID is fixed there; only the worker drains it),
 * with what it sends by: the mailer, the channels and, with the worker role, the report renderer.
 */
async function deliveryPieces(
  options: DaemonOptions,
  foundation: Foundation,
  { logger, metrics, sends }: { logger: Logger; metrics: DaemonMetrics; sends: boolean },
) {
  const { config } = options;
  const { store, clock, instance, definitions } = foundation;
  const mailer = options.mailer ?? (config.smtp ? createSmtpMailer(config.smtp) : undefined);
  // Only a worker renders: Chromium is never looked for (nor, being lazy, launched) without one.
  const renderer: DeliveryRenderer & { close?(): Promise<void> } =
    options.renderer ?? (sends ? await defaultRenderer(config, store, clock, logger) : { render: noRender });
  const watch = new IncidentWatch({ config, store, clock, logger });
  const channels = options.channels ?? channelSenders(config.channels);
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
  return { mailer, renderer, channels, outbox, watch };
}

/**
 * The http role, when it has a port. When it cannot listen (the port is taken, the host wrong) what
 * already started is undone before the one-line DaemonStartError.
 */
async function startHttpOrUndo(
  ctx: RoleContext,
  running: Omit<RunningDaemon, 'http'>,
  storeOpen: () => boolean,
): Promise<HealthServer | undefined> {
  const { config } = ctx;
  if (config.http.port === undefined) return undefined;
  const { foundation } = running;
  const { instance } = foundation;
  try {
    return await startHttpRole(ctx, {
      port: config.http.port,
      storeOpen,
      instance: instance.id,
      storeWritable: () => instance.beat(),
    });
  } catch (error) {
    running.abort.abort(error);
    foundation.definitions.close();
    await running.outage.close();
    await running.worker?.stopped;
    await instance.close();
    if (foundation.ownsStore) await foundation.store.close();
    await running.renderer.close?.();
    running.mailer?.close();
    throw new DaemonStartError(
      `cannot listen on ${config.http.host}:${config.http.port}: ${(error as Error).message}`,
    );
  }
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

async function defaultRenderer(config: Config, store: Store, clock: Clock, logger: Logger) {
  const { createReportRenderer } = await import('../delivery/render-delivery.js');
  return createReportRenderer({ config, store, clock, logger });
}
