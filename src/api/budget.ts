import { type Clock, systemClock } from '../clock.js';
import { decideStart, type StartDecision, type StartRecord } from './budget-start.js';
import type { RequestHistory } from './request-history.js';
import {
  minimumDurationMs,
  nextStartTime,
  timesInWindow,
  timeToStartAll,
  type WindowState,
} from './retry-timing.js';

export interface RateBudgetOptions {
  /** Budget identity, normally the API key: the server counts per key. */
  key: string;
  /** At most this many request starts inside any window of `windowMs`. */
  requests: number;
  windowMs: number;
  /** Most requests in flight at once; unbounded when absent. */
  concurrency?: number;
  clock?: Clock;
  history?: RequestHistory;
}

function checkLimits(key: string, options: Pick<RateBudgetOptions, 'requests' | 'windowMs'>): void {
  if (!(options.requests >= 1) || !(options.windowMs > 0)) {
    throw new RangeError(`rate budget ${key}: requests must be >= 1 and windowMs > 0`);
  }
}

interface Waiter {
  grant: (release: () => void) => void;
  fail: (reason: unknown) => void;
}

/**
 * A sliding-window rate budget per API key. Callers `acquire()` before every request and call the
 * returned `release()` when it ends. Waiters are served strictly in arrival order by one drain loop,
 * which sleeps exactly until the oldest counted request leaves the window, so the window is used
 * fully and no caller can overtake another.
 *
 * A request counts from its start until `windowMs` after its end (see `nextStartTime` for why the
 * end): never more than `requests` start inside any window, and the server, which counts arrivals,
 * never sees more either, whatever the latency.
 */
export class RateBudget {
  readonly key: string;
  // Not readonly: `reconfigure` applies the key's options when the config changes (daemon reload).
  requests: number;
  windowMs: number;
  concurrency: number;
  private readonly clock: Clock;
  private readonly history?: RequestHistory;
  /** When finished requests ended (as the history reports them), ascending, only those still in the window. */
  private finished: number[] = [];
  private blockedUntil = Number.NEGATIVE_INFINITY;
  private inFlight = 0;
  private readonly queue: Waiter[] = [];
  private draining = false;
  /** Aborts the drain loop's sleep when nobody waits any more, so no timer outlives the demand. */
  private sleepAbort?: AbortController;
  /** The history's window, read once before the first grant (the constructor cannot wait for it). */
  private loaded?: Promise<void>;

  constructor(options: RateBudgetOptions) {
    checkLimits(options.key, options);
    this.key = options.key;
    this.requests = Math.floor(options.requests);
    this.windowMs = options.windowMs;
    this.concurrency = Math.max(1, options.concurrency ?? Number.POSITIVE_INFINITY);
    this.clock = options.clock ?? systemClock;
    this.history = options.history;
  }

  /**
   * Applies the key's options (a reloaded config may change its rate_limit or concurrency) without
   * forgetting the requests already counted or in flight. True when something changed.
   */
  reconfigure(options: Pick<RateBudgetOptions, 'requests' | 'windowMs' | 'concurrency'>): boolean {
    const requests = Math.floor(options.requests);
    const concurrency = Math.max(1, options.concurrency ?? Number.POSITIVE_INFINITY);
    checkLimits(this.key, options);
    if (
      requests === this.requests &&
      options.windowMs === this.windowMs &&
      concurrency === this.concurrency
    ) {
      return false;
    }
    this.requests = requests;
    this.windowMs = options.windowMs;
    this.concurrency = concurrency;
    // A larger window or limit may free a slot now; a sleeping drain re-reads the state after waking.
    this.sleepAbort?.abort();
    void this.drain();
    return true;
  }

  /**
   * Resolves once the history's window is loaded (the first `acquire` waits for it anyway); for
   * readers of `usedInWindow` right after a start.
   */
  ready(): Promise<void> {
    return this.load();
  }

  /**
   * The server still counts what the history remembers; a restart must not forget it. Every time the
   * history returns counts, even one later than `now`: the history reads after waiting for the key's
   * lock, so a request another process started or ended meanwhile comes back later than the `now`
   * taken here, and the history will not return it again (`others` starts after what it loaded).
   * Dropping those let two processes on one PostgreSQL store overrun the key by one (a -145).
   */
  private load(): Promise<void> {
    const history = this.history;
    if (!history) return Promise.resolve();
    this.loaded ??= (async () => {
      const now = this.clock.now();
      const recent = await history.recent(this.key, now - this.windowMs, now);
      this.finished = [...recent, ...this.finished].sort((a, b) => a - b);
      this.trim(now);
    })();
    return this.loaded;
  }

  /** Waits for a slot (window and concurrency), FIFO. Rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        if (this.queue.length === 0) this.sleepAbort?.abort();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        fail: (reason) => {
          signal?.removeEventListener('abort', onAbort);
          reject(reason);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      void this.drain();
    });
  }

  /** After -145: the server counts the window as full, so no request starts before now + windowMs. */
  penalize(): void {
    this.blockedUntil = Math.max(this.blockedUntil, this.clock.now() + this.windowMs);
  }

  /** Requests counted in the current window: those in flight and those that ended inside it. */
  usedInWindow(): number {
    return this.inFlight + timesInWindow(this.finished, this.clock.now(), this.windowMs).length;
  }

  /** Requests holding a slot right now (started, not yet released). */
  get inFlightCount(): number {
    return this.inFlight;
  }

  /** Requests waiting for a slot (for metrics). */
  get waiting(): number {
    return this.queue.length;
  }

  /** Least time the window allows for `count` requests, starting from an empty window. */
  minimumDurationMs(count: number): number {
    return minimumDurationMs(count, this.requests, this.windowMs);
  }

  /** Least time from now until `count` more requests can all have started (a progress ETA). */
  timeToStartMs(count: number): number {
    return timeToStartAll(this.window(this.finished), count, this.clock.now());
  }

  /**
   * The one loop that hands out slots. Only the head of the queue is ever considered, which is what
   * makes the order fair; after each sleep it re-reads the state because penalize() or an abort may
   * have changed it.
   */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      try {
        await this.load();
      } catch (error) {
        // Without the window's past a grant could burst past the server's count: fail the waiters;
        // the next acquire() tries the history again.
        this.loaded = undefined;
        for (const waiter of this.queue.splice(0)) waiter.fail(error);
        return;
      }
      while (this.queue.length > 0) {
        if (this.inFlight >= this.concurrency) return; // a release() restarts the loop
        const { at, now, logged } = await this.decide();
        if (at === Number.POSITIVE_INFINITY) return; // only a release() can free a slot
        if (at > now) {
          this.sleepAbort = new AbortController();
          await this.clock.sleep(at - now, this.sleepAbort.signal).catch(() => {});
          continue;
        }
        await this.grantHead(now, logged);
      }
    } finally {
      this.draining = false;
      this.sleepAbort = undefined;
    }
  }

  /** When the head of the queue may start (see decideStart: other processes' requests count too). */
  private decide(): Promise<StartDecision> {
    return decideStart({
      key: this.key,
      clock: this.clock,
      history: this.history,
      windowMs: () => this.windowMs,
      own: () => this.finished,
      startAt: (finished, now) => nextStartTime(this.window(finished), now),
    });
  }

  private async grantHead(now: number, recorded?: StartRecord): Promise<void> {
    const waiter = this.queue[0];
    if (!waiter) {
      // Every waiter gave up (abort) while the store was asked: nothing starts; a start recorded for
      // the head ends now, so it counts no longer than a request that ended at once.
      if (recorded && 'row' in recorded)
        this.history?.finish?.(recorded.row, this.clock.now())?.catch(() => {});
      return;
    }
    let logged: unknown;
    try {
      if (recorded && 'error' in recorded) throw recorded.error;
      logged = recorded ? recorded.row : await this.history?.record(this.key, now);
    } catch (error) {
      // Starting without a record would let a restart burst; fail this caller instead.
      if (this.queue[0] === waiter) this.queue.shift();
      waiter.fail(error);
      return;
    }
    if (this.queue[0] !== waiter) {
      // The caller gave up (abort) while its start was being recorded: nothing starts; the record
      // ends now so it counts no longer than a request that ended at once.
      this.history?.finish?.(logged, this.clock.now())?.catch(() => {});
      return;
    }
    this.queue.shift();
    this.inFlight++;
    let released = false;
    waiter.grant(() => {
      if (released) return;
      released = true;
      this.inFlight--;
      const end = this.clock.now();
      // Only the end can be lost: a restart then counts this request from its start or from the
      // restart itself (see RequestHistory.recent), never not at all. The release must go on.
      this.history?.finish?.(logged, end)?.catch(() => {});
      // Kept sorted: ends come in clock order, but a loaded time may lie after this end (above).
      let at = this.finished.length;
      while (at > 0 && this.finished[at - 1]! > end) at--;
      this.finished.splice(at, 0, end);
      this.trim(end);
      void this.drain();
    });
  }

  /** The window as the timing functions read it, with `finished` as the times that count. */
  private window(finished: readonly number[]): WindowState {
    return {
      finished,
      inFlight: this.inFlight,
      requests: this.requests,
      windowMs: this.windowMs,
      blockedUntil: this.blockedUntil,
    };
  }

  /** Keeps only the times that can still matter: those in the window, and at most `requests`. */
  private trim(now: number): void {
    let finished = timesInWindow(this.finished, now, this.windowMs);
    if (finished.length > this.requests) finished = finished.slice(finished.length - this.requests);
    this.finished = finished;
  }
}
