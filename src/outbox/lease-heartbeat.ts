import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Fence } from '../queue/fence.js';
import { type Heartbeat, startHeartbeat } from '../queue/lease.js';
import type { Store } from '../store/sql.js';
import { renewLease } from './deliveries.js';

/**
 * Keeps a claimed delivery's lease alive while its worker is alive: the queue's heartbeat
 * (queue/lease.ts) renewing the row under its claim's token. The lease can then be short (a crashed
 * worker's row is claimable about one lease later) while a long render keeps its claim.
 *
 * `maxHoldMs` bounds one attempt: past it, and when a renewal finds the row taken over, the heartbeat
 * aborts `signal` and the outbox gives the render up (counted as a failed attempt, or left to the new
 * owner).
 *
 * `lost` aborts only when a renewal finds the row taken over: the new owner sends the message, so
 * this worker stops where it stands, and what has not left the process does not leave it (the SMTP
 * connection is closed before the message's end, a channel's request not yet sent is not sent). The
 * hold cap does not cut an exchange: the row is still this worker's, its answer can be recorded, and
 * the transport's own timeouts bound it.
 */
export interface LeaseHeartbeat extends Heartbeat {
  /** Aborted when a renewal found the row another worker's (never for the hold cap). */
  readonly lost: AbortSignal;
}

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
  const lost = new AbortController();
  const heartbeat = startHeartbeat({
    clock,
    leaseMs: Math.min(leaseMs, sendLeaseMs),
    maxHoldMs: options.maxHoldMs,
    what: 'the attempt',
    renew: () => renewLease(store, { ...fence, now: clock.now(), leaseMs, sendLeaseMs }),
    onGiveUp: (why, heldMs) => {
      if (why === 'hold-cap')
        logger.error({ heldMs }, 'delivery attempt took longer than the hold cap; giving it up');
      else {
        logger.warn('lease no longer ours (taken over or finished); giving the attempt up');
        lost.abort(new Error('the row was claimed by another worker during this attempt'));
      }
    },
    // A locked or closing store: the next beat tries again, the lease has room for two misses.
    onError: (error) => logger.warn({ err: error }, 'could not renew the delivery lease'),
  });
  return {
    stop: () => heartbeat.stop(),
    signal: heartbeat.signal,
    get gaveUp() {
      return heartbeat.gaveUp;
    },
    lost: lost.signal,
  };
}
