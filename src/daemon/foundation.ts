import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { DaemonStartError } from '../errors/index.js';
import type { Logger } from '../log.js';
import { openStore } from '../store/db.js';
import { type StoreClock, storeClock } from '../store/db-clock.js';
import { watchStoreFile } from '../store/file-watch.js';
import type { Store } from '../store/sql.js';
import { DefinitionWatch } from './definition-watch.js';
import { type Instance, startInstance } from './instance.js';
import { reportFingerprints } from './report-fingerprint.js';
import { RoleHealth } from './role-health.js';
import { DAEMON_ROLES, type DaemonRole } from './roles/names.js';

/**
 * What a daemon stands on before any role starts (daemon.ts composes the rest on it): the refusals
 * it checks first, its store and the clock every host shares, its row of `instances` and the report
 * definitions it serves.
 */

/** The refusals a daemon says in one line before anything opens or listens: nothing to clean up. */
export async function refuseBadStart(
  config: Config,
  roles: ReadonlySet<DaemonRole>,
  injected: { mailer?: unknown; renderer?: unknown },
): Promise<void> {
  const sends = roles.has('worker');
  if (
    sends &&
    !injected.mailer &&
    [...config.reports, ...config.alerts].some((r) => r.email) &&
    !config.smtp
  ) {
    throw new DaemonStartError('reports or alerts send email but smtp is not configured');
  }
  // Asked for by name (not all roles, the default) without a port: it would silently serve nothing.
  if (roles.has('http') && roles.size < DAEMON_ROLES.length && config.http.port === undefined) {
    throw new DaemonStartError('the http role needs http.port in the config');
  }
  // A missing or wrong browser is said in one line now, not at the first delivery hours later (where
  // it would only be retried until the attempts run out).
  if (sends && !injected.renderer && config.reports.length > 0) {
    const { findChromium } = await import('../report/chromium.js');
    findChromium({ configPath: config.chromium.path });
  }
}

export interface Foundation {
  store: Store;
  /** Opened here (not injected): the daemon closes it when it stops. */
  ownsStore: boolean;
  /** The database's clock on PostgreSQL (absent when a clock was injected). */
  dbClock: StoreClock | undefined;
  clock: Clock;
  health: RoleHealth;
  instance: Instance;
  definitions: DefinitionWatch;
}

/**
 * Opens (or takes) the store, settles the clock, starts this instance's row and records the report
 * definitions it serves. A failure after the row started closes what it opened before it rethrows.
 */
export async function layFoundation(options: {
  config: Config;
  roles: ReadonlySet<DaemonRole>;
  logger: Logger;
  clock?: Clock;
  store?: Store;
  health?: RoleHealth;
}): Promise<Foundation> {
  const { config, roles, logger } = options;
  const runs = (role: DaemonRole) => roles.has(role);
  const ownsStore = !options.store;
  const store = options.store ?? (await openDaemonStore(config, logger));
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
  return { store, ownsStore, dbClock, clock, health, instance, definitions };
}

function openDaemonStore(config: Config, logger: Logger): Promise<Store> {
  let lastConnectionWarning = Number.NEGATIVE_INFINITY;
  return openStore(config.store, {
    // A server restart closes every idle connection at once: one line for them, not one each.
    onConnectionError(error) {
      if (Date.now() - lastConnectionWarning < 10_000) return;
      lastConnectionWarning = Date.now();
      logger.warn(
        { code: (error as { code?: string }).code, err: error.message },
        'store connection lost; reconnecting at the next query',
      );
    },
  });
}

/**
 * Why the store can no longer be used, once it happens. A store file deleted or replaced under the
 * daemon stops all work (see file-watch.ts), said once in the log and on every /readyz. Only a SQLite
 * store is a file this process holds open.
 */
export function storeProblemWatch(store: Store, logger: Logger): () => string | undefined {
  const storeFile = store.engine === 'sqlite' ? watchStoreFile(store.location) : undefined;
  let storeProblemLogged = false;
  return () => {
    const problem = storeFile?.problem();
    if (problem && !storeProblemLogged) {
      storeProblemLogged = true;
      logger.error({ store: store.location }, `${problem}; taking no more work`);
    }
    return problem;
  };
}
