import type { Clock, FakeClock } from '../../src/clock.js';

/**
 * A view of a shared fake clock for one worker whose process can be stopped: while paused, its timers
 * that come due do not run (SIGSTOP, a suspended VM, a crashed process that is never resumed), so its
 * lease heartbeat falls silent while the other workers' time goes on.
 */
export function pausableClock(shared: FakeClock): { clock: Clock; pause(): void; resume(): void } {
  let paused: Promise<void> | undefined;
  let resume = () => {};
  return {
    clock: {
      now: () => shared.now(),
      async sleep(ms, signal) {
        await shared.sleep(ms, signal);
        while (paused) await paused;
      },
    },
    pause() {
      paused ??= new Promise<void>((resolve) => {
        resume = () => {
          paused = undefined;
          resolve();
        };
      });
    },
    resume: () => resume(),
  };
}
