import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';

/**
 * The one lease heartbeat, shared by the delivery queue, job slots and account leases.
 *
 * A lease is what lets another process take over work whose holder died (kill -9, a lost machine).
 * Renewing it every third of its length lets the lease itself be short: a dead holder stops renewing
 * and loses it about one lease later, while a live one keeps it however long the work takes. Two
 * renewals can be missed (a GC pause, a busy SQLite lock) before the claim is at risk; if it is lost
 * anyway (a SIGSTOP past the lease), the fencing token on every write keeps the late holder's writes
 * from changing anything (queue/fence.ts).
 *
 * `maxHoldMs` bounds one hold: a live event loop would otherwise renew forever for work that never
 * settles. Past the cap, and when a renewal finds the lease taken over, the heartbeat stops and
 * aborts `signal`, so the holder gives its work up. Timers run on the injected clock.
 */
export interface Heartbeat {
  /** Stops renewing and resolves once a renewal under way has finished; safe to call more than once. */
  stop(): Promise<void>;
  /** Aborted when the heartbeat gives the hold up; its reason says why. */
  readonly signal: AbortSignal;
  /** Why the heartbeat gave up: the lease was taken over (`lost`) or held past `maxHoldMs`. */
  readonly gaveUp: 'lost' | 'hold-cap' | undefined;
}

export interface HeartbeatOptions {
  clock: Clock;
  /** The lease length (ms); renewed every third of it. */
  leaseMs: number;
  /** Pushes the lease forward; false when it is no longer ours (taken over or finished). */
  renew: () => Promise<boolean>;
  /** What is held, for the abort reason (`the attempt took longer than 30 min`); default `the hold`. */
  what?: string;
  /** Longest the heartbeat keeps renewing (ms); unbounded when absent. */
  maxHoldMs?: number;
  /** Told once when the heartbeat gives up, with why. */
  onGiveUp?: (why: 'lost' | 'hold-cap', heldMs: number) => void;
  /** A renewal threw (a locked or closing store); the next beat tries again. */
  onError?: (error: unknown) => void;
}

export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const { clock, leaseMs, renew, maxHoldMs } = options;
  const intervalMs = Math.max(1, Math.floor(leaseMs / 3));
  const stopper = new AbortController();
  const giveUp = new AbortController();
  const started = clock.now();
  let gaveUp: Heartbeat['gaveUp'];
  const quit = (why: 'lost' | 'hold-cap', message: string) => {
    gaveUp = why;
    options.onGiveUp?.(why, clock.now() - started);
    giveUp.abort(new Error(message));
  };

  const loop = (async () => {
    for (;;) {
      try {
        await clock.sleep(intervalMs, stopper.signal);
      } catch {
        return; // stopped
      }
      if (stopper.signal.aborted) return;
      if (maxHoldMs !== undefined && clock.now() - started >= maxHoldMs) {
        quit(
          'hold-cap',
          `${options.what ?? 'the hold'} took longer than ${Math.round(maxHoldMs / 60_000)} min`,
        );
        return;
      }
      try {
        const renewed = await renew();
        // Stopped while the renewal was in flight: the work is settled, whatever the answer says.
        if (stopper.signal.aborted) return;
        if (!renewed) {
          quit('lost', 'the lease was taken over by another holder');
          return;
        }
      } catch (error) {
        if (stopper.signal.aborted) return;
        options.onError?.(error);
      }
    }
  })();

  return {
    stop: () => {
      stopper.abort();
      return loop;
    },
    signal: giveUp.signal,
    get gaveUp() {
      return gaveUp;
    },
  };
}

/**
 * A fencing token: new for every claim, so a holder that lost its claim (and a holder that claimed
 * the same row again later) is told apart from the current one by every conditional write.
 */
export function newToken(): string {
  return randomBytes(9).toString('base64url');
}
