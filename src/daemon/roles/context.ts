import type { Clock } from '../../clock.js';
import type { Config } from '../../config/index.js';
import type { Outbox } from '../../delivery/outbox-worker.js';
import type { Logger } from '../../log.js';
import type { IncidentWatch } from '../../notify/watch.js';
import type { Store } from '../../store/sql.js';
import type { DaemonMetrics } from '../metrics.js';
import type { RoleHealth } from '../role-health.js';

/**
 * What the composer (daemon.ts) hands every role: the shared pieces of one process. Roles talk to
 * each other only through the store and `kick`, so any subset of them can run in one process and the
 * rest in others on the same store.
 */
export interface RoleContext {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Aborted when the daemon stops. */
  signal: AbortSignal;
  /** Why the store cannot be used (its file was deleted or replaced), once it happens: take no more work. */
  storeProblem(): string | undefined;
  metrics: DaemonMetrics;
  /** Enqueues (every role) and drains (the worker role). */
  outbox: Outbox;
  watch: IncidentWatch;
  /** Each loop's last cycle: what /readyz reads to say whether the roles do their work. */
  health: RoleHealth;
  /** Wakes this process's worker after an enqueue; a no-op without the worker role. */
  kick(): void;
}
