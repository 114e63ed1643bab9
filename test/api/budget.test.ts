import { afterEach, describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/api/budget.js';
import type { RequestHistory } from '../../src/api/request-history.js';
import { maxStartsInAnyWindow } from '../../src/api/retry-timing.js';
import { clearSharedBudgets, sharedBudget } from '../../src/api/shared-budget.js';
import { FakeClock } from '../../src/clock.js';

const MINUTE = 60_000;

/** Runs `count` requests that each hold their slot for `holdMs`; returns start times in grant order. */
function runRequests(budget: RateBudget, clock: FakeClock, count: number, holdMs: number, tag = '') {
  const starts: { at: number; tag: string; index: number }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const done = Array.from({ length: count }, async (_, index) => {
    const release = await budget.acquire();
    starts.push({ at: clock.now(), tag, index });
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    await clock.sleep(holdMs);
    inFlight--;
    release();
  });
  return { starts, done: Promise.all(done), maxInFlight: () => maxInFlight };
}

class MemoryHistory implements RequestHistory {
  readonly rows: { key: string; at: number }[] = [];
  async recent(key: string, since: number): Promise<number[]> {
    return this.rows.filter((r) => r.key === key && r.at > since).map((r) => r.at);
  }
  async record(key: string, at: number): Promise<void> {
    this.rows.push({ key, at });
  }
}

afterEach(() => clearSharedBudgets());

describe('RateBudget', () => {
  it('never lets more than N requests start in any window, and uses the window fully', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const budget = new RateBudget({ key: 'k', requests: 120, windowMs: MINUTE, concurrency: 4, clock });
    const run = runRequests(budget, clock, 1_000, 250);
    await clock.runUntilIdle();
    await run.done;

    const times = run.starts.map((s) => s.at);
    expect(times).toHaveLength(1_000);
    expect(maxStartsInAnyWindow(times, MINUTE)).toBe(120);
    expect(run.maxInFlight()).toBe(4);
    const lastStart = Math.max(...times) - t0;
    const minimum = budget.minimumDurationMs(1_000);
    expect(minimum).toBe(8 * MINUTE);
    expect(lastStart).toBeGreaterThanOrEqual(minimum);
    expect(lastStart).toBeLessThanOrEqual(minimum * 1.02);
    // FIFO: callers are served in the order they asked.
    expect(run.starts.map((s) => s.index)).toEqual(run.starts.map((_, i) => i));
  });

  it('keeps the server window (counted at arrival) within N whatever the latency', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ key: 'k', requests: 10, windowMs: 1_000, concurrency: 3, clock });
    // Deterministic, widely varying latencies; the server sees each request somewhere in flight.
    let seed = 7;
    const random = () => {
      seed = (seed * 16_807) % 2_147_483_647;
      return (seed - 1) / 2_147_483_646;
    };
    const arrivals: number[] = [];
    const starts: number[] = [];
    const done = Array.from({ length: 60 }, async () => {
      const release = await budget.acquire();
      const start = clock.now();
      starts.push(start);
      const latency = Math.floor(random() * 400);
      arrivals.push(start + Math.floor(random() * latency));
      await clock.sleep(latency);
      release();
    });
    await clock.runUntilIdle();
    await Promise.all(done);
    expect(maxStartsInAnyWindow(starts, 1_000)).toBeLessThanOrEqual(10);
    expect(maxStartsInAnyWindow(arrivals, 1_000)).toBeLessThanOrEqual(10);
  });

  it('wakes the next waiter exactly when the oldest start leaves the window', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const budget = new RateBudget({ key: 'k', requests: 2, windowMs: 1_000, clock });
    (await budget.acquire())();
    await clock.advance(300);
    (await budget.acquire())();
    expect(budget.usedInWindow()).toBe(2);
    let thirdAt = 0;
    const third = budget.acquire().then((release) => {
      thirdAt = clock.now();
      release();
    });
    await clock.advance(699);
    expect(thirdAt).toBe(0);
    await clock.advance(1);
    await third;
    expect(thirdAt - t0).toBe(1_000);
  });

  it('shares one budget between every caller of the same key, first come first served', async () => {
    const clock = new FakeClock();
    const a = sharedBudget('key-1', { requests: 10, windowMs: 1_000, clock });
    const b = sharedBudget('key-1', { requests: 10, windowMs: 1_000, clock });
    const other = sharedBudget('key-2', { requests: 10, windowMs: 1_000, clock });
    expect(b).toBe(a);
    expect(other).not.toBe(a);

    const first = runRequests(a, clock, 15, 10, 'a');
    const second = runRequests(b, clock, 15, 10, 'b');
    await clock.runUntilIdle();
    await Promise.all([first.done, second.done]);
    const all = [...first.starts, ...second.starts];
    expect(
      maxStartsInAnyWindow(
        all.map((s) => s.at),
        1_000,
      ),
    ).toBe(10);
    // Client a asked first for all 15, so it gets the whole first window and 5 of the second.
    const grantOrder = [...all].sort((x, y) => x.at - y.at).map((s) => s.tag);
    expect(grantOrder.join('')).toBe('a'.repeat(15) + 'b'.repeat(15));
    expect(other.usedInWindow()).toBe(0);
  });

  it('after penalize() starts nothing until a whole window has passed', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const budget = new RateBudget({ key: 'k', requests: 120, windowMs: MINUTE, clock });
    (await budget.acquire())();
    await clock.advance(5_000);
    budget.penalize();
    let startedAt = 0;
    const next = budget.acquire().then((release) => {
      startedAt = clock.now();
      release();
    });
    await clock.advance(MINUTE - 1);
    expect(startedAt).toBe(0);
    await clock.advance(1);
    await next;
    expect(startedAt - t0).toBe(5_000 + MINUTE);
  });

  it('reloads recent starts from history so a restart does not burst', async () => {
    const clock = new FakeClock();
    const history = new MemoryHistory();
    const before = new RateBudget({ key: 'k', requests: 5, windowMs: 1_000, clock, history });
    for (let i = 0; i < 5; i++) {
      (await before.acquire())();
      await clock.advance(100);
    }
    expect(history.rows).toHaveLength(5);
    const firstStart = history.rows[0]!.at;

    // "Restart": a new budget with the same history.
    const after = new RateBudget({ key: 'k', requests: 5, windowMs: 1_000, clock, history });
    await after.ready();
    expect(after.usedInWindow()).toBe(5);
    let startedAt = 0;
    const next = after.acquire().then((release) => {
      startedAt = clock.now();
      release();
    });
    await clock.runUntilIdle();
    await next;
    expect(startedAt).toBe(firstStart + 1_000);
    expect(
      maxStartsInAnyWindow(
        history.rows.map((r) => r.at),
        1_000,
      ),
    ).toBe(5);
  });

  it('gives up a waiter on abort without blocking the ones behind it', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ key: 'k', requests: 1, windowMs: 1_000, clock });
    (await budget.acquire())();
    const controller = new AbortController();
    const aborted = budget.acquire(controller.signal);
    const granted: number[] = [];
    const behind = budget.acquire().then((release) => {
      granted.push(clock.now());
      release();
    });
    controller.abort(new Error('shutting down'));
    await expect(aborted).rejects.toThrow('shutting down');
    await clock.runUntilIdle();
    await behind;
    expect(granted).toHaveLength(1);
    expect(budget.usedInWindow()).toBe(1);
    // Already aborted: refused at once.
    await expect(budget.acquire(AbortSignal.abort(new Error('late')))).rejects.toThrow('late');
  });

  it('leaves no timer behind when every waiter aborts', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ key: 'k', requests: 1, windowMs: 1_000, clock });
    (await budget.acquire())();
    const controller = new AbortController();
    const waiting = budget.acquire(controller.signal);
    await clock.advance(10);
    expect(clock.pendingSleepers).toBe(1);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await clock.advance(0);
    expect(clock.pendingSleepers).toBe(0);
  });
});
