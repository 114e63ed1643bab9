import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { type StoreClock, storeClock } from '../../src/store/db-clock.js';
import type { Store } from '../../src/store/sql.js';
import { testEngine } from '../helpers/test-store.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * The database's clock on a real PostgreSQL, resampled while the process is busy: a reading whose
 * query waited 300 ms in the pool before it reached the server (as behind a sync's writes) says the
 * database is ~150 ms ahead of where it is. Taken, it would move every budget decision by that much
 * (a -145 once it exceeds the budget's margin); kept out, the clock stays where the precise reading
 * put it. A host clock really stepped by 5 s is followed even through such slow readings.
 */
const onPostgres = testEngine() === 'postgres';

let temp: TempStore | undefined;
let clock: StoreClock | undefined;

afterEach(async () => {
  clock?.close();
  await temp?.cleanup();
  temp = undefined;
});

/** The store, with every clock reading held back `delay.ms` before it is sent; `delay.read` counts them. */
function queued(store: Store, delay: { ms: number; read: number }): Store {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key !== 'get') return Reflect.get(target, key, receiver);
      return async (sql: string, params?: unknown[]) => {
        const reading = sql.includes('clock_timestamp');
        if (reading && delay.ms > 0) await new Promise((resolve) => setTimeout(resolve, delay.ms));
        try {
          return await target.get(sql, params as never);
        } finally {
          if (reading) delay.read++;
        }
      };
    },
  });
}

/**
 * Until two whole resamples (three readings each, one after the other: a slow one takes about 1 s
 * of its 1.5 s interval) have been taken since now, and the second has been judged.
 */
async function twoResamples(delay: { read: number }) {
  const from = delay.read;
  while (delay.read < from + 6) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe.skipIf(!onPostgres)('the database clock', () => {
  it('a slow reading taken while the pool is busy does not move the clock', async () => {
    temp = await tempStore();
    const delay = { ms: 0, read: 0 };
    clock = await storeClock(queued(temp.store, delay), { resampleMs: 1_500 });
    const precise = clock.skewMs();
    expect(Math.abs(precise)).toBeLessThan(50); // one host: the database's clock is this one
    delay.ms = 300;
    await twoResamples(delay);
    expect(Math.abs(clock.skewMs() - precise)).toBeLessThan(20);
  });

  it('a host clock stepped by 5 s is followed, even through slow readings', async () => {
    temp = await tempStore();
    const delay = { ms: 0, read: 0 };
    let step = 0;
    const base: Clock = {
      now: () => Date.now() + step,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    };
    clock = await storeClock(queued(temp.store, delay), { base, resampleMs: 1_500 });
    delay.ms = 300;
    step = 5_000;
    await twoResamples(delay);
    expect(clock.skewMs()).toBeGreaterThan(4_700);
    expect(clock.skewMs()).toBeLessThan(5_300);
  });
});
