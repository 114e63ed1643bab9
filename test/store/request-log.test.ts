import { afterEach, describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/api/budget.js';
import { FakeClock } from '../../src/clock.js';
import { openStore } from '../../src/store/db.js';
import { countRequestsSince, StoreRequestHistory } from '../../src/store/request-log.js';
import { tempStore } from '../sync/helpers/temp-store.js';

/**
 * Moves the fake clock one sleeper at a time until `done`, letting real time pass in between: on
 * PostgreSQL each grant is network round trips, which a fake clock's microtask flush does not wait
 * for, so `runUntilIdle` would jump past deadlines (or return) while a grant is still in flight.
 */
async function driveUntil(clock: FakeClock, done: () => boolean): Promise<void> {
  const giveUpAt = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > giveUpAt) throw new Error('driveUntil: the budget never got there');
    if (clock.pendingSleepers === 0) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      continue;
    }
    // One step wakes only the earliest sleeper (and then complains that more steps were needed).
    await clock.runUntilIdle(1).catch(() => {});
  }
}

describe('request_log as the budget history', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(() => cleanup?.());

  it('makes a budget opened after a restart wait out what the previous process started', async () => {
    const temp = await tempStore();
    cleanup = temp.cleanup;
    const clock = new FakeClock();
    const first = new RateBudget({
      key: 'k',
      requests: 5,
      windowMs: 1000,
      clock,
      history: new StoreRequestHistory(temp.store),
    });
    for (let i = 0; i < 5; i++) (await first.acquire())();
    await temp.store.close();

    // A new process: a fresh budget over the reopened file, 400 ms later.
    await clock.advance(400);
    const reopened = await openStore(temp.target);
    const second = new RateBudget({
      key: 'k',
      requests: 5,
      windowMs: 1000,
      clock,
      history: new StoreRequestHistory(reopened),
    });
    await second.ready();
    expect(second.usedInWindow()).toBe(5);
    let granted = false;
    const pending = second.acquire().then((release) => {
      granted = true;
      release();
    });
    await clock.advance(599);
    expect(granted).toBe(false);
    await clock.advance(1);
    // The grant may still be on its way through the store (PostgreSQL: round trips), its 1 ms sleep
    // registered after the advance: wake sleepers until it lands.
    await driveUntil(clock, () => granted);
    await pending;
    expect(granted).toBe(true);
    expect(await countRequestsSince(reopened, 'k', clock.now() - 1000)).toBe(1);
    await reopened.close();
  });

  it("counts the previous process's requests from their end, and those it died during from the restart", async () => {
    const temp = await tempStore();
    cleanup = temp.cleanup;
    const clock = new FakeClock();
    const t0 = clock.now();
    const options = { key: 'k', requests: 2, windowMs: 1000, clock };
    const first = new RateBudget({ ...options, history: new StoreRequestHistory(temp.store) });
    // A slow request: the server may have counted it as late as its end, t0 + 800.
    const slow = await first.acquire();
    await clock.advance(800);
    slow();
    // Another one still in flight when the process is killed at t0 + 900 (never released).
    await clock.advance(100);
    await first.acquire();
    await temp.store.close();

    await clock.advance(100); // the restart, at t0 + 1000
    const reopened = await openStore(temp.target);
    const second = new RateBudget({ ...options, history: new StoreRequestHistory(reopened) });
    await second.ready();
    expect(second.usedInWindow()).toBe(2);
    const granted: number[] = [];
    const next = Array.from({ length: 2 }, () =>
      second.acquire().then((release) => {
        granted.push(clock.now() - t0);
        release();
      }),
    );
    await driveUntil(clock, () => granted.length === 2);
    await Promise.all(next);
    // Counted from its end (t0 + 800), not its start; the orphan from the restart (t0 + 1000).
    expect(granted).toEqual([1800, 2000]);
    await reopened.close();
  });

  it("counts another process's request recorded while the budget waited to load, until it ends and a window after", async () => {
    const temp = await tempStore();
    cleanup = temp.cleanup;
    // Another process: its own connection (SQLite: same file; PostgreSQL: its own pool).
    const other = await openStore(temp.target);
    const theirs = new StoreRequestHistory(other);
    const clock = new FakeClock();
    const t0 = clock.now();
    const mine = new RateBudget({
      key: 'k',
      requests: 1,
      windowMs: 1000,
      clock,
      history: new StoreRequestHistory(temp.store),
    });
    let loading!: Promise<void>;
    let theirRow: unknown;
    await theirs.exclusive('k', async () => {
      // The load takes its time now (t0), then waits for the key's lock, held here...
      loading = mine.ready();
      // ...while the other process starts a request 10 ms later.
      await clock.advance(10);
      theirRow = await theirs.record('k', clock.now());
    });
    await loading;
    expect(mine.usedInWindow()).toBe(1);
    // It ends at t0 + 300: the server may have counted it as late as that, so the one slot frees at t0 + 1300.
    await clock.advance(290);
    await theirs.finish(theirRow, clock.now());
    let granted: number | undefined;
    const pending = mine.acquire().then((release) => {
      granted = clock.now() - t0;
      release();
    });
    await driveUntil(clock, () => granted !== undefined);
    await pending;
    expect(granted).toBe(1300);
    await other.close();
  });

  it('prunes rows that left every window and keeps keys apart', async () => {
    const temp = await tempStore();
    cleanup = temp.cleanup;
    const history = new StoreRequestHistory(temp.store);
    for (const at of [100, 200, 300]) await history.record('a', at);
    await history.record('b', 100);
    expect(await history.recent('a', 150)).toEqual([200, 300]);
    expect((await temp.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM request_log'))?.n).toBe(3);
    expect(await history.recent('b', 0)).toEqual([100]);
  });
});
