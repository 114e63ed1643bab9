import { loopRetryMs } from '../role-health.js';
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
 * (so up to `loops` deliveries render at once, the renderer's pages; failure notices are rows of it
 * too), and sleeping until the next retry or lease end of a row this config can send, a kick, or `pollMs`
 * (the longest a row enqueued by another process waits to be seen).
 */
export function startWorkerRole(ctx: RoleContext, options: { pollMs: number; loops: number }): WorkerRole {
  const { clock, logger, outbox, signal, watch, health } = ctx;
  const { pollMs } = options;
  const wakers = new Set<AbortController>();
  let kicks = 0;
  const kick = () => {
    kicks++;
    for (const waker of wakers) waker.abort();
  };
  const loop = async (_: unknown, index: number) => {
    const name = `outbox worker ${index + 1}`;
    let failures = 0;
    // One line when the store starts failing under the loop (then warnings), one when it is back.
    const failed = (error: unknown) => {
      failures++;
      const first = health.failed(name, 'worker', error);
      logger[first ? 'error' : 'warn']({ err: error, failures }, 'outbox worker error; retrying');
    };
    while (!signal.aborted) {
      const seen = kicks;
      let cycleFailed = false;
      health.expect(name, 'worker', undefined);
      try {
        if (!ctx.storeProblem()) {
          await outbox.drain(signal);
          // A delivery that just failed for good (or went out again) opens (or clears) its incident.
          await watch.reconcileDeliveries();
          // …whose notice is a row of the same queue, sent now rather than after the next sleep.
          await outbox.drain(signal);
        }
      } catch (error) {
        cycleFailed = true;
        failed(error);
      }
      if (signal.aborted || (kicks !== seen && !cycleFailed)) continue;
      let due: number | undefined;
      if (!cycleFailed) {
        try {
          due = await outbox.nextDueAt();
        } catch (error) {
          // The store refused the read: back off and look again rather than stop the worker.
          cycleFailed = true;
          failed(error);
        }
      }
      if (!cycleFailed) {
        if (failures > 0) logger.info({ failures }, 'outbox worker recovered');
        failures = 0;
        health.completed(name, 'worker');
      }
      // A kick while the reads above were awaited found no waker to abort: look again instead of
      // sleeping through it (up to pollMs) with a due row in the outbox.
      if (kicks !== seen && !cycleFailed) continue;
      const waitMs = cycleFailed
        ? Math.min(pollMs, loopRetryMs(failures))
        : Math.max(0, Math.min(pollMs, due === undefined ? pollMs : due - clock.now() + 1));
      health.expect(name, 'worker', clock.now() + waitMs);
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
