import type { Config } from '../config/index.js';
import type { Mailer } from '../delivery/destinations/smtp-mailer.js';
import type { Logger } from '../log.js';
import type { Foundation } from './foundation.js';
import type { HealthServer } from './http.js';
import type { WorkerRole } from './roles/worker.js';
import type { Scheduler } from './scheduler.js';
import type { StoreOutageWatch } from './store-outage.js';

/** What a running daemon stops, in the order `stopDaemon` stops it. */
export interface RunningDaemon {
  foundation: Foundation;
  logger: Logger;
  /** Aborted first: sync requests, renders and the roles' loops see it. */
  abort: AbortController;
  scheduler: Scheduler;
  worker: WorkerRole | undefined;
  outage: StoreOutageWatch;
  renderer: { close?(): Promise<void> };
  http: HealthServer | undefined;
  mailer: Mailer | undefined;
  /** How long an SMTP exchange in flight may take to get its answer (`shutdownGraceMs`). */
  graceMs: number;
  /** From here on /readyz says the store is closed. */
  markStoreClosed(): void;
}

/**
 * Stops everything a daemon started. Every step runs even if one before it threw (the failure is
 * logged, the stop goes on); the caller makes it one promise for every call of `close()`.
 */
export async function stopDaemon(running: RunningDaemon): Promise<void> {
  const { logger, foundation, worker } = running;
  logger.info('daemon stopping');
  const step = async (name: string, fn: () => unknown) => {
    try {
      await fn();
    } catch (error) {
      logger.error({ err: error, step: name }, 'shutdown step failed');
    }
  };
  running.abort.abort(new Error('daemon stopping'));
  // Sync requests and renders see the abort; an SMTP exchange in flight gets drainMs to finish.
  // Both wait side by side, so the stop takes the longer of the two, not their sum.
  await Promise.all([
    step('scheduler', () => running.scheduler.close()),
    step('outbox', () =>
      Promise.race([worker?.stopped, new Promise((resolve) => setTimeout(resolve, running.graceMs).unref())]),
    ),
  ]);
  await step('store outage watch', () => running.outage.close());
  await step('renderer', () => running.renderer.close?.());
  await step('http', () => running.http?.close());
  await step('mailer', () => running.mailer?.close());
  foundation.definitions.close();
  await step('instance', () => foundation.instance.close());
  running.markStoreClosed();
  foundation.dbClock?.close();
  if (foundation.ownsStore) await step('store', () => foundation.store.close());
  logger.info('daemon stopped');
}

/** See `DaemonOptions.drainMs` (daemon.ts); the CLI's hard stop is this plus a margin. */
export function shutdownGraceMs(options: { config: Config; drainMs?: number }): number {
  return options.drainMs ?? (options.config.smtp?.shutdown_grace_seconds ?? 75) * 1000;
}
