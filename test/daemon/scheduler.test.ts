import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import type { JobContext } from '../../src/daemon/job-runs.js';
import { Scheduler } from '../../src/daemon/scheduler.js';
import { openStore } from '../../src/store/db.js';
import { getJobState } from '../../src/store/job-state.js';
import type { Store } from '../../src/store/sql.js';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-sched-'));
  store = await openStore(join(dir, 'reportd.sqlite'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const iso = (t: number) => new Date(t).toISOString();

function weekly(clock: FakeClock, fired: { at: string; slot: string; reason: string }[]) {
  const scheduler = new Scheduler({ store, clock });
  scheduler.add({
    name: 'report:weekly-executive',
    cron: '0 8 * * 1',
    timezone: 'Europe/Berlin',
    async run(ctx: JobContext) {
      fired.push({ at: iso(clock.now()), slot: iso(ctx.slot), reason: ctx.reason });
    },
  });
  return scheduler;
}

describe('scheduler on a fake clock', () => {
  it('fires Monday 08:00 Berlin once per slot across the spring DST change', async () => {
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    const fired: { at: string; slot: string; reason: string }[] = [];
    const scheduler = weekly(clock, fired);
    scheduler.start();
    await clock.advance(18 * 86_400_000);
    await scheduler.close();
    expect(fired).toEqual([
      { at: '2026-03-23T07:00:00.000Z', slot: '2026-03-23T07:00:00.000Z', reason: 'schedule' },
      { at: '2026-03-30T06:00:00.000Z', slot: '2026-03-30T06:00:00.000Z', reason: 'schedule' },
      { at: '2026-04-06T06:00:00.000Z', slot: '2026-04-06T06:00:00.000Z', reason: 'schedule' },
    ]);
  });

  it('and across the autumn change', async () => {
    const clock = new FakeClock(Date.parse('2026-10-15T00:00:00Z'));
    const fired: { at: string; slot: string; reason: string }[] = [];
    const scheduler = weekly(clock, fired);
    scheduler.start();
    await clock.advance(19 * 86_400_000);
    await scheduler.close();
    expect(fired.map((f) => f.at)).toEqual([
      '2026-10-19T06:00:00.000Z',
      '2026-10-26T07:00:00.000Z',
      '2026-11-02T07:00:00.000Z',
    ]);
  });

  it('runs slots missed while stopped once at start-up, then keeps the schedule', async () => {
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    const fired: { at: string; slot: string; reason: string }[] = [];
    const first = weekly(clock, fired);
    first.start();
    await clock.advance(4 * 86_400_000); // fires 03-23
    await first.close();

    // Down for two Mondays (03-30 and 04-06).
    await clock.advance(Date.parse('2026-04-08T09:00:00Z') - clock.now());
    const second = weekly(clock, fired);
    second.start();
    await clock.advance(6 * 86_400_000);
    await second.close();
    expect(fired.map((f) => `${f.reason} ${f.at}`)).toEqual([
      'schedule 2026-03-23T07:00:00.000Z',
      'catch-up 2026-04-08T09:00:00.000Z',
      'schedule 2026-04-13T06:00:00.000Z',
    ]);
    expect((await getJobState(store, 'report:weekly-executive'))?.last_slot_at).toBe(
      Date.parse('2026-04-13T06:00:00Z'),
    );
  });

  it('a fresh store sends nothing at start-up', async () => {
    const clock = new FakeClock(Date.parse('2026-03-24T12:00:00Z'));
    const fired: { at: string; slot: string; reason: string }[] = [];
    const scheduler = weekly(clock, fired);
    scheduler.start();
    await clock.advance(86_400_000);
    await scheduler.close();
    expect(fired).toEqual([]);
  });

  it('never overlaps a job with itself', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:30Z'));
    const scheduler = new Scheduler({ store, clock });
    let active = 0;
    let maxActive = 0;
    const starts: string[] = [];
    scheduler.add({
      name: 'sync',
      cron: '* * * * *',
      async run(ctx) {
        active++;
        maxActive = Math.max(maxActive, active);
        starts.push(iso(clock.now()));
        try {
          await clock.sleep(90_000, ctx.signal); // longer than the one-minute schedule
        } finally {
          active--;
        }
      },
    });
    scheduler.start();
    await clock.advance(4 * 60_000 + 30_000);
    // A manual run while busy waits for the current run, then runs once for all callers.
    const manual = Promise.all([scheduler.runNow('sync'), scheduler.runNow('sync')]);
    await clock.advance(5 * 60_000);
    await manual;
    await scheduler.close();
    expect(maxActive).toBe(1);
    expect(starts.slice(0, 3)).toEqual([
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:03:00.000Z', // 00:02 passed during the first run: skipped
      '2026-01-01T00:05:00.000Z',
    ]);
  });
});
