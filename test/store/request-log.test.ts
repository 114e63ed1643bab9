import { afterEach, describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/api/budget.js';
import { FakeClock } from '../../src/clock.js';
import { openStore } from '../../src/store/db.js';
import { countRequestsSince, SqliteRequestHistory } from '../../src/store/request-log.js';
import { tempStore } from '../sync/helpers/temp-store.js';

describe('request_log as the budget history', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it('makes a budget opened after a restart wait out what the previous process started', async () => {
    const temp = tempStore();
    cleanup = temp.cleanup;
    const clock = new FakeClock();
    const first = new RateBudget({
      key: 'k',
      requests: 5,
      windowMs: 1000,
      clock,
      history: new SqliteRequestHistory(temp.store),
    });
    for (let i = 0; i < 5; i++) (await first.acquire())();
    temp.store.close();

    // A new process: a fresh budget over the reopened file, 400 ms later.
    await clock.advance(400);
    const reopened = openStore(temp.path);
    const second = new RateBudget({
      key: 'k',
      requests: 5,
      windowMs: 1000,
      clock,
      history: new SqliteRequestHistory(reopened),
    });
    expect(second.usedInWindow()).toBe(5);
    let granted = false;
    const pending = second.acquire().then((release) => {
      granted = true;
      release();
    });
    await clock.advance(599);
    expect(granted).toBe(false);
    await clock.advance(1);
    await pending;
    expect(granted).toBe(true);
    expect(countRequestsSince(reopened, 'k', clock.now() - 1000)).toBe(1);
    reopened.close();
  });

  it("counts the previous process's requests from their end, and those it died during from the restart", async () => {
    const temp = tempStore();
    cleanup = temp.cleanup;
    const clock = new FakeClock();
    const t0 = clock.now();
    const options = { key: 'k', requests: 2, windowMs: 1000, clock };
    const first = new RateBudget({ ...options, history: new SqliteRequestHistory(temp.store) });
    // A slow request: the server may have counted it as late as its end, t0 + 800.
    const slow = await first.acquire();
    await clock.advance(800);
    slow();
    // Another one still in flight when the process is killed at t0 + 900 (never released).
    await clock.advance(100);
    await first.acquire();
    temp.store.close();

    await clock.advance(100); // the restart, at t0 + 1000
    const reopened = openStore(temp.path);
    const second = new RateBudget({ ...options, history: new SqliteRequestHistory(reopened) });
    expect(second.usedInWindow()).toBe(2);
    const granted: number[] = [];
    const next = Array.from({ length: 2 }, () =>
      second.acquire().then((release) => {
        granted.push(clock.now() - t0);
        release();
      }),
    );
    await clock.runUntilIdle();
    await Promise.all(next);
    // Counted from its end (t0 + 800), not its start; the orphan from the restart (t0 + 1000).
    expect(granted).toEqual([1800, 2000]);
    reopened.close();
  });

  it('prunes rows that left every window and keeps keys apart', () => {
    const temp = tempStore();
    cleanup = temp.cleanup;
    const history = new SqliteRequestHistory(temp.store);
    for (const at of [100, 200, 300]) history.record('a', at);
    history.record('b', 100);
    expect(history.recent('a', 150)).toEqual([200, 300]);
    expect(temp.store.db.prepare('SELECT COUNT(*) FROM request_log').pluck().get()).toBe(3);
    expect(history.recent('b', 0)).toEqual([100]);
  });
});
