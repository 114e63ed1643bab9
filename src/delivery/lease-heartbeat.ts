import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { type Fence, type Heartbeat, startHeartbeat } from '../queue/index.js';
import type { Store } from '../store/db.js';
import { renewLease } from '../store/deliveries.js';

/**
 * Keeps a claimed delivery's lease alive while its worker is alive: the queue's heartbeat
 * (queue/lease.ts) renewing the row under its claim's token. The lease can then be short (a crashed
 * worker's row is claimable about one lease later) while a long render keeps its claim.
 *
 * `maxHoldMs` bounds one attempt: past it, and when a renewal finds the row taken over, the heartbeat
 * aborts `signal` and the outbox gives the render up (counted as a failed attempt, or left to the new
 * owner). An exchange with a provider is not cut mid-way (it could be the one that delivers); the
 * transport's own timeouts bound it.
 */
export type LeaseHeartbeat = Heartbeat;

export function startLeaseHeartbeat(options: {
  store: Store;
  clock: Clock;
  logger: Logger;
  fence: Fence;
  leaseMs: number;
  sendLeaseMs: number;
  maxHoldMs: number;
}): LeaseHeartbeat {
  const { store, clock, logger, fence, leaseMs, sendLeaseMs } = options;
  return startHeartbeat({
    clock,
    leaseMs: Math.min(leaseMs, sendLeaseMs),
    maxHoldMs: options.maxHoldMs,
    what: 'the attempt',
    renew: () => renewLease(store, { ...fence, now: clock.now(), leaseMs, sendLeaseMs }),
    onGiveUp: (why, heldMs) => {
      if (why === 'hold-cap')
        logger.error({ heldMs }, 'delivery attempt took longer than the hold cap; giving it up');
      else logger.warn('lease no longer ours (taken over or finished); giving the attempt up');
    },
    // A locked or closing store: the next beat tries again, the lease has room for two misses.
    onError: (error) => logger.warn({ err: error }, 'could not renew the delivery lease'),
  });
}
