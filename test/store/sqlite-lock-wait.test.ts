import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { holdWriteLock } from '../helpers/sqlite-locker.js';

/**
 * Another process holds the SQLite file's write lock. A write of this process waits for it, up to
 * 5 s, then fails with "database is locked" — and while it waits the process goes on: timers fire,
 * /readyz answers, the scheduler sees its slot. A wait inside the driver (SQLite's busy_timeout)
 * froze the event loop for the whole wait; a sync pass meeting the lock on every request froze the
 * daemon for minutes (CI, 2026-11-26: no slot, no "job loop failed", for 40 s).
 */
let tmp: ReturnType<typeof tempDir>;
let store: Store;
let file: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  tmp = tempDir();
  file = join(tmp.dir, 'reportd.sqlite');
  store = await openStore(file);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await store?.close();
  tmp?.cleanup();
});

/** Counts the ticks of a 20 ms timer while `work` runs: a frozen event loop counts none. */
async function ticksDuring<T>(
  work: () => Promise<T>,
): Promise<{ ticks: number; result: PromiseSettledResult<T> }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  const [result] = await Promise.allSettled([work()]);
  clearInterval(timer);
  return { ticks, result: result! };
}

describe('a SQLite store whose write lock another process holds', () => {
  it('waits up to 5 s without freezing the process, then says "database is locked"', async () => {
    await store.run('CREATE TABLE IF NOT EXISTS probe (n INTEGER)');
    const lock = await holdWriteLock(file, children);
    try {
      const plain = await ticksDuring(() => store.run('INSERT INTO probe (n) VALUES (1)'));
      expect(plain.result.status).toBe('rejected');
      expect(String((plain.result as PromiseRejectedResult).reason)).toMatch(/database is locked/);
      // About 250 ticks in the 5 s wait; a frozen loop gives 0 or 1 (the timer due at its end).
      expect(plain.ticks).toBeGreaterThan(20);

      const transaction = await ticksDuring(() =>
        store.transaction(() => store.run('INSERT INTO probe (n) VALUES (2)')),
      );
      expect(transaction.result.status).toBe('rejected');
      expect(transaction.ticks).toBeGreaterThan(20);
    } finally {
      await lock.release();
    }
    // Nothing of the refused writes landed.
    expect(await store.all('SELECT n FROM probe')).toEqual([]);
  }, 60_000);

  it('a write made while the lock is held goes through once it is released within the wait', async () => {
    const lock = await holdWriteLock(file, children);
    const write = store.transaction(() => store.run('INSERT INTO probe (n) VALUES (3)'));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await lock.release();
    await write;
    expect(await store.all('SELECT n FROM probe')).toEqual([{ n: 3 }]);
  }, 60_000);
});
