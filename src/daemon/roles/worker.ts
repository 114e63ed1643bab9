import type { NoticeSender } from '../../notify/notices.js';
import type { RoleContext } from './context.js';

/** The worker role of a running daemon. */
export interface WorkerRole {
  /** Wakes every loop to look at the outbox now (after an enqueue). */
  kick(): void;
  /** Settles when every loop has stopped (after the daemon's signal aborts). */
  stopped: Promise<void>;
}

/**
 * The worker role: `loops` independent loops, each draining the outbox one claimed row at a time
 * (so up to `loops` deliveries render at once, the renderer's pages) and then the failure notices,
 * and sleeping until the next retry or lease end of a row this config can send, a kick, or `pollMs`
 * (the longest a row enqueued by another process waits to be seen).
 */
export function startWorkerRole(
  ctx: RoleContext,
  options: { notices: NoticeSender; pollMs: number; loops: number },
): WorkerRole {
  const { clock, logger, outbox, signal, watch } = ctx;
  const { notices, pollMs } = options;
  const wakers = new Set<AbortController>();
  let kicks = 0;
  const kick = () => {
    kicks++;
    for (const waker of wakers) waker.abort();
  };
  const loop = async () => {
    while (!signal.aborted) {
      const seen = kicks;
      try {
        if (!ctx.storeProblem()) {
          await outbox.drain(signal);
          // A delivery that just failed for good (or went out again) opens (or clears) its incident.
          await watch.reconcileDeliveries();
          await notices.drain(signal);
        }
      } catch (error) {
        logger.error({ err: error }, 'outbox worker error');
      }
      if (signal.aborted || kicks !== seen) continue;
      let due: number | undefined;
      try {
        due = earliest(await outbox.nextDueAt(), await notices.nextDueAt());
      } catch (error) {
        // The store refused the read: look again after pollMs rather than stop the worker.
        logger.error({ err: error }, 'outbox worker error');
      }
      // A kick while the reads above were awaited found no waker to abort: look again instead of
      // sleeping through it (up to pollMs) with a due row in the outbox.
      if (kicks !== seen) continue;
      const waitMs = Math.max(0, Math.min(pollMs, due === undefined ? pollMs : due - clock.now() + 1));
      const wake = new AbortController();
      wakers.add(wake);
      const stop = () => wake.abort();
      signal.addEventListener('abort', stop, { once: true });
      await clock.sleep(waitMs, wake.signal).catch(() => {});
      signal.removeEventListener('abort', stop);
      wakers.delete(wake);
    }
  };
  const stopped = Promise.all(Array.from({ length: Math.max(1, options.loops) }, loop)).then(() => undefined);
  return { kick, stopped };
}

function earliest(...times: (number | undefined)[]): number | undefined {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}
