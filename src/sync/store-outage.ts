import { systemClock } from '../clock.js';
import { StoreFaultError } from '../errors/index.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/sql.js';
import { isStoreUnreachable } from '../store/store-unreachable.js';

/**
 * A PostgreSQL restart under a sync pass: the pass waits for the store to answer again and goes on
 * from what the store holds, as a new process would after a kill -9 (plan.ts resumes a snapshot
 * with only its missing payloads). So the payloads fetched twice are only those whose answers were
 * in flight when the store went, and the pass still ends with every snapshot it was due.
 */

/** How long a pass waits for a store that stopped answering before it fails (a restart takes seconds). */
export const STORE_OUTAGE_PATIENCE_MS = 60_000;
/** How often it asks whether the store is back. */
const PROBE_MS = 500;

export interface OutageOptions {
  store: Store;
  signal?: AbortSignal;
  log: Logger;
  /** What the step was doing, for the warning: `fetching payloads`, `recording the pass`. */
  step: string;
  patienceMs?: number;
}

/**
 * Runs `step`; when it fails because the store cannot be reached, waits until the store answers
 * (one warning, one line when it is back) and runs `step` again. Any other error or an abort is
 * thrown as it came; a store still down after `patienceMs` is a StoreFaultError naming it, which
 * ends the pass in one line like a full disk does.
 */
export async function outlastingStoreOutages<T>(options: OutageOptions, step: () => Promise<T>): Promise<T> {
  const { store, signal, log } = options;
  const patienceMs = options.patienceMs ?? STORE_OUTAGE_PATIENCE_MS;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (!isStoreUnreachable(error) || signal?.aborted) throw error;
      log.warn(
        { err: error instanceof Error ? error.message : String(error), waitingUpToMs: patienceMs },
        `store unreachable while ${options.step}; going on from what it holds once it answers`,
      );
      await waitForStore(store, patienceMs, signal, error);
      log.info(`store answers again; ${options.step} from what it holds`);
    }
  }
}

async function waitForStore(
  store: Store,
  patienceMs: number,
  signal: AbortSignal | undefined,
  first: unknown,
) {
  const deadline = Date.now() + patienceMs;
  let last = first;
  // Real time, like the client's timeouts: an outage lasts as long as it lasts, whatever clock
  // schedules the sync. A timer that holds the process open: while the store is down it may be the
  // only thing the daemon waits on (an unref'd one let it exit in silence mid-pass).
  while (Date.now() < deadline) {
    await systemClock.sleep(PROBE_MS, signal);
    try {
      await store.get('SELECT 1 AS ok');
      return;
    } catch (error) {
      if (!isStoreUnreachable(error)) throw error;
      last = error;
    }
  }
  const reason = last instanceof Error ? last.message : String(last);
  throw new StoreFaultError(`store ${store.location}: unreachable for ${patienceMs / 1000} s (${reason})`, {
    cause: last,
  });
}
