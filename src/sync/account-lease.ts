import { backgroundClock, type Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { startHeartbeat } from '../queue/lease.js';
import type { Store } from '../store/sql.js';
import {
  acquireAccountLease,
  type LeaseHolder,
  newLeaseHolder,
  releaseAccountLease,
  renewAccountLease,
} from './account-lease-rows.js';

/**
 * One process syncs an account at a time (account-lease-rows.ts). A second process waits for
 * the first and says so; when its turn comes its plan holds only what the first did not store, so no
 * payload is fetched twice. The holder renews its lease while it works; a holder that stops renewing
 * (killed, frozen, host gone) loses it after `LEASE_TTL_MS`, and one that died on this host at once.
 */

/** How long a lease holds without renewal. */
export const LEASE_TTL_MS = 30_000;
/** How often a waiting process looks again. */
const POLL_MS = 500;

export interface AccountLease {
  /** Stops renewing (waiting for a renewal under way) and gives the lease back. */
  release(): Promise<void>;
}

/**
 * Waits until this process holds `account`'s lease (logging once who it waits for), then keeps it
 * renewed until `release()`. `onLost` runs if another process took it over meanwhile (this one
 * stalled past the TTL): the caller must stop fetching. Rejects with the signal's reason on abort.
 */
export async function holdAccountLease(options: {
  store: Store;
  account: string;
  clock: Clock;
  signal: AbortSignal;
  log: Logger;
  onWait?: (message: string) => void;
  /** Called once when this process starts waiting (the pass's progress stops expecting its plan). */
  waiting?: () => void;
  /** False: resolve undefined at once when another process holds the lease (daemons sharing accounts). */
  wait?: boolean;
  onLost: (message: string) => void;
}): Promise<AccountLease | undefined> {
  const { store, account, clock, signal } = options;
  const holder: LeaseHolder = newLeaseHolder();
  let told = false;
  for (;;) {
    signal.throwIfAborted();
    const result = await acquireAccountLease(store, account, holder, clock.now(), LEASE_TTL_MS);
    if (result.acquired) break;
    if (options.wait === false) return undefined;
    if (!told) {
      told = true;
      const { host, pid } = result.heldBy;
      const message = `account ${account}: another process (pid ${pid} on ${host}) is syncing it; waiting for it to finish`;
      // The caller may say it itself (the CLI, on one line); the daemon has only its log.
      const level = options.onWait ? 'info' : 'warn';
      options.log[level]({ holderPid: pid, holderHost: host }, message);
      options.onWait?.(message);
      options.waiting?.();
    }
    await clock.sleep(POLL_MS, signal);
  }
  if (told) options.log.info('the other process finished; syncing what it left');
  let released = false;
  // Real time on purpose, like the client's timeouts: it bounds how long a stalled process keeps
  // others waiting, whatever clock schedules the sync.
  const heartbeat = startHeartbeat({
    clock: backgroundClock,
    leaseMs: LEASE_TTL_MS,
    renew: () => renewAccountLease(store, account, holder, clock.now(), LEASE_TTL_MS),
    onGiveUp: () => {
      if (!released)
        options.onLost(`account ${account}: another process took over its sync (this one stalled too long)`);
    },
    // The store refused the write (full disk…): the sync's own writes report that.
  });
  return {
    async release() {
      if (released) return;
      released = true;
      // Waits for a renewal under way, so none lands after the lease is given back.
      await heartbeat.stop();
      try {
        await releaseAccountLease(store, account, holder);
      } catch {
        // Unreleased, it lapses after LEASE_TTL_MS, or at once for this host once the process exits.
      }
    },
  };
}
