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
