import { hostname } from 'node:os';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../log.js';
import { holderName as workerName } from '../queue/holder.js';
import {
  HEARTBEAT_MS,
  heartbeatInstance,
  markInstanceStopped,
  pruneInstances,
  registerInstance,
} from '../store/instances.js';
import { pruneJobSlots } from '../store/job-slots.js';
import type { Store } from '../store/sql.js';
import { VERSION } from '../version.js';

/**
 * This daemon as a row of `instances`: registered at start, a heartbeat on a timer, `stopped_at` on
 * a clean stop. Its `id` is a claim holder's name (`host:pid:random`), and the daemon uses it as the
 * outbox worker, the notice sender and the slot claimer, so every lease it holds names it; a peer on
 * the same host can tell from it that the process is gone.
 */

/** Stopped or silent instances and finished slots are kept this long for `status` and `history`. */
const KEEP_MS = 7 * 86_400_000;

export interface Instance {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  readonly roles: readonly string[];
  readonly startedAt: number;
  /**
   * Touches the row now: the write /readyz makes to learn whether the store takes writes. Rejects
   * with the store's error when it does not.
   */
  beat(): Promise<void>;
  /** Stops the heartbeat and marks the row stopped; the same promise on every call. */
  close(): Promise<void>;
}

export async function startInstance(options: {
  store: Store;
  roles: readonly string[];
  clock?: Clock;
  logger?: Logger;
  heartbeatMs?: number;
  /** This host's clock minus the database's (store/db-clock.ts), written with every heartbeat. */
  clockSkewMs?: () => number | null;
}): Promise<Instance> {
  const { store, roles } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const row = {
    id: workerName(),
    host: hostname(),
    pid: process.pid,
    version: VERSION,
    roles: roles.join(','),
    started_at: clock.now(),
  };
  const skew = () => options.clockSkewMs?.() ?? null;
  await registerInstance(store, row, skew());
  // Housekeeping at start, not on a timer: a week of history is plenty and starts are rare enough.
  try {
    await pruneInstances(store, row.started_at - KEEP_MS);
    await pruneJobSlots(store, row.started_at - KEEP_MS);
  } catch (error) {
    logger.warn({ err: error }, 'could not prune old instances and slots');
  }
  let beating: Promise<void> | undefined;
  const touch = async () => {
    // A row pruned away (this process stalled for a week) is written again rather than lost.
    if (!(await heartbeatInstance(store, row.id, clock.now(), skew()))) {
      await registerInstance(store, row, skew());
    }
  };
  const beat = async () => {
    try {
      await touch();
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'instance heartbeat failed');
    }
  };
  // Real time, unref'd: the heartbeat says the process is alive, whatever clock schedules its jobs.
  const timer = setInterval(() => {
    beating ??= beat().finally(() => {
      beating = undefined;
    });
  }, heartbeatMs);
  timer.unref();
  let closing: Promise<void> | undefined;
  return {
    id: row.id,
    host: row.host,
    pid: row.pid,
    roles,
    startedAt: row.started_at,
    beat: touch,
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        await beating;
        try {
          await markInstanceStopped(store, row.id, clock.now());
        } catch (error) {
          // Unmarked, the row reads as gone once its heartbeat is a few intervals old.
          logger.warn({ err: error }, 'could not mark the instance stopped');
        }
      })();
      return closing;
    },
  };
}
