import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { renewLease } from '../store/deliveries.js';

/**
 * Keeps a claimed delivery's lease alive while its worker is alive.
 *
 * The lease is what lets another worker take over a row whose owner died (kill -9, a lost machine).
 * A fixed lease had to outlast the longest render, so a crash cost that much delay (10 min) before
 * the report went out. Renewing it every `leaseMs / 3` lets the lease itself be short: a dead
 * process stops renewing and its row is claimable about one lease later, while a long render by a
 * live one keeps its claim however long it takes. Two renewals can be missed (a GC pause, a busy
 * SQLite lock) before the claim is at risk, and if it is lost anyway, `markSending`'s owner check
 * still keeps the late worker from sending.
 *
 * `maxHoldMs` bounds one attempt. A live event loop would otherwise renew forever for a render that
 * never settles, leaving the row held by a worker that will never finish it. Past the cap, and when
 * a renewal finds the row taken over, the heartbeat stops and aborts `signal`: the outbox gives the
 * render up (counted as a failed attempt, or left to the new owner). An SMTP exchange is not cut
 * mid-way (it could be the one that delivers); the transport's own timeouts bound it.
 *
 * Timers run on the injected clock, so tests prove all of this on a fake one.
 */
export interface LeaseHeartbeat {
  /** Stops renewing; safe to call more than once. The lease is left as it is (the caller settles the row). */
  stop(): void;
  /** Aborted when the heartbeat gives the attempt up; its reason says why. */
  readonly signal: AbortSignal;
  /** Why the heartbeat gave up: the row was taken over (`lost`) or held past `maxHoldMs`. */
  readonly gaveUp: 'lost' | 'hold-cap' | undefined;
}

export function startLeaseHeartbeat(options: {
  store: Store;
  clock: Clock;
  logger: Logger;
  id: number;
  worker: string;
  leaseMs: number;
  sendLeaseMs: number;
  maxHoldMs: number;
}): LeaseHeartbeat {
  const { store, clock, logger, id, worker, leaseMs, sendLeaseMs, maxHoldMs } = options;
  const intervalMs = Math.max(1, Math.floor(Math.min(leaseMs, sendLeaseMs) / 3));
  const stopper = new AbortController();
  const giveUp = new AbortController();
  const started = clock.now();
  let gaveUp: LeaseHeartbeat['gaveUp'];
  const quit = (why: 'lost' | 'hold-cap', message: string) => {
    gaveUp = why;
    giveUp.abort(new Error(message));
  };

  void (async () => {
    for (;;) {
      try {
        await clock.sleep(intervalMs, stopper.signal);
      } catch {
        return; // stopped
      }
      if (stopper.signal.aborted) return;
      const now = clock.now();
      if (now - started >= maxHoldMs) {
        logger.error(
          { heldMs: now - started },
          'delivery attempt took longer than the hold cap; giving it up',
        );
        quit('hold-cap', `the attempt took longer than ${Math.round(maxHoldMs / 60_000)} min`);
        return;
      }
      try {
        const renewed = await renewLease(store, { id, worker, now, leaseMs, sendLeaseMs });
        // Stopped while the renewal was in flight: the attempt is settled, whatever the answer says.
        if (stopper.signal.aborted) return;
        if (!renewed) {
          logger.warn('lease no longer ours (taken over or finished); giving the attempt up');
          quit('lost', 'the delivery was taken over by another worker');
          return;
        }
      } catch (error) {
        if (stopper.signal.aborted) return;
        // A locked or closing store: the next beat tries again, the lease has room for two misses.
        logger.warn({ err: error }, 'could not renew the delivery lease');
      }
    }
  })();

  return {
    stop: () => stopper.abort(),
    signal: giveUp.signal,
    get gaveUp() {
      return gaveUp;
    },
  };
}
