import { describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/api/budget.js';
import type { RequestHistory } from '../../src/api/request-history.js';
import { maxStartsInAnyWindow } from '../../src/api/retry-timing.js';
import { FakeClock } from '../../src/clock.js';

/**
 * The budget against a history several processes share (as the store's request_log is): two budgets
 * of one key, each with its own view of one table of rows, stand for two processes. The real store
 * is tested across processes in test/sync/two-processes.test.ts; here the clock is fake, so every
 * window can be checked, and the history counts how often the budget takes the key's lock.
 */
interface Row {
  owner: string;
  start: number;
  end?: number;
}

class SharedHistory {
  readonly rows: Row[] = [];
  /** Locked sections opened (on PostgreSQL: BEGIN + advisory lock … COMMIT, four round trips). */
  exclusiveCalls = 0;
  private tail: Promise<unknown> = Promise.resolve();

  viewOf(owner: string, clock: FakeClock): RequestHistory {
    // As the request log counts a request: from its end, or from now while it is in flight.
    const countsFrom = (row: Row) => row.end ?? Math.max(row.start, clock.now());
    return {
      recent: async () => [],
      record: async (_key, at) => {
        const row: Row = { owner, start: at };
        this.rows.push(row);
        return row;
      },
      finish: async (row, at) => {
        (row as Row).end = at;
      },
      others: async (_key, since) =>
        this.rows.filter((r) => r.owner !== owner && countsFrom(r) > since).map(countsFrom),
      exclusive: <T>(_key: string, fn: () => Promise<T>): Promise<T> => {
        this.exclusiveCalls++;
        const run = this.tail.then(fn, fn);
        this.tail = run.catch(() => {});
        return run;
      },
    };
  }
}

/** `count` requests through `budget`, each holding its slot `holdMs`; resolves with their starts. */
async function requests(budget: RateBudget, clock: FakeClock, count: number, holdMs: number) {
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: count }, async () => {
      const release = await budget.acquire();
      starts.push(clock.now());
      await clock.sleep(holdMs);
      release();
    }),
  );
  return starts;
}

describe('RateBudget on a history shared by several processes', () => {
  it('keeps two processes of one key within its limit together, in every window', async () => {
    const clock = new FakeClock();
    const history = new SharedHistory();
    const options = { key: 'k', requests: 5, windowMs: 1_000, concurrency: 3, clock };
    const a = new RateBudget({ ...options, history: history.viewOf('a', clock) });
    const b = new RateBudget({ ...options, history: history.viewOf('b', clock) });
    const runs = Promise.all([requests(a, clock, 40, 30), requests(b, clock, 40, 30)]);
    await clock.runUntilIdle();
    const [startsA, startsB] = await runs;

    expect(startsA.length + startsB.length).toBe(80);
    expect(maxStartsInAnyWindow([...startsA, ...startsB], 1_000)).toBeLessThanOrEqual(5);
    // Both got turns: neither process starved the other.
    expect(startsA.length).toBe(40);
    expect(startsB.length).toBe(40);
  });

  it("waits for its own full window without taking the key's lock: one locked section per request", async () => {
    const clock = new FakeClock();
    const history = new SharedHistory();
    const budget = new RateBudget({
      key: 'k',
      requests: 5,
      windowMs: 1_000,
      concurrency: 5,
      clock,
      history: history.viewOf('a', clock),
    });
    const run = requests(budget, clock, 30, 10);
    await clock.runUntilIdle();
    const starts = await run;

    expect(maxStartsInAnyWindow(starts, 1_000)).toBe(5);
    // Each grant reads the others' requests and records its start under the lock once; a wake-up
    // that its own requests already hold back asks nothing of the store.
    expect(history.exclusiveCalls).toBe(30);
  });
});
