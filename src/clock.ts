/**
 * Time is injected wherever schedules, budgets or retries depend on it, so tests run on a fake clock
 * and never sleep through a real rate-limit window.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A timer sleep; `unref`'d timers never keep the process alive on their own. */
function timerSleep(unref: boolean): Clock['sleep'] {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      if (unref) timer.unref();
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

export const systemClock: Clock = { now: () => Date.now(), sleep: timerSleep(false) };

/** The system clock for background renewals: its timers do not hold a finishing process open. */
export const backgroundClock: Clock = { now: () => Date.now(), sleep: timerSleep(true) };

interface Sleeper {
  until: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that only moves when told to. Sleepers wake in deadline order as `advance` passes them, and
 * each wake-up lets pending microtasks run, so code that sleeps in a loop behaves as it would in real
 * time. `runUntilIdle` advances straight to the next deadline until nothing sleeps any more.
 */
export class FakeClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      // The listener goes when the sleeper wakes, as with real timers: a long-lived signal (a
      // heartbeat's, a daemon's) must not collect one per sleep.
      const sleeper: Sleeper = {
        until: this.current + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  get pendingSleepers(): number {
    return this.sleepers.length;
  }

  /** Moves time forward by `ms`, waking every sleeper whose deadline is passed, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      const next = this.nextSleeper();
      if (!next || next.until > target) break;
      this.wake(next);
    }
    this.current = target;
    await flushMicrotasks();
  }

  /** Jumps from deadline to deadline until no one sleeps; returns the time that passed. */
  async runUntilIdle(maxSteps = 1_000_000): Promise<number> {
    const start = this.current;
    for (let step = 0; step < maxSteps; step++) {
      await flushMicrotasks();
      const next = this.nextSleeper();
      if (!next) return this.current - start;
      this.wake(next);
    }
    throw new Error('FakeClock.runUntilIdle: too many steps, something sleeps forever');
  }

  private nextSleeper(): Sleeper | undefined {
    return [...this.sleepers].sort((a, b) => a.until - b.until || a.seq - b.seq)[0];
  }

  private wake(sleeper: Sleeper): void {
    this.sleepers = this.sleepers.filter((s) => s !== sleeper);
    this.current = Math.max(this.current, sleeper.until);
    sleeper.resolve();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise<void>((resolve) => setImmediate(resolve));
}
