import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { getJobState } from '../../src/store/job-state.js';
import { listScheduleEvents } from '../../src/store/schedule-events.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { fixtureSnapshot } from '../report/fixtures.js';
import { seedStore } from '../report/helpers.js';
import { advanceTo, enqueued, idleSync, seededConfig, stubRenderer } from './helpers.js';

/**
 * Report lifecycle in the whole daemon (scheduler, outbox, real SMTP server) on a fake clock:
 * `enabled: false` never fires, `active_from`/`active_until` bound the slots, and `max_delay` keeps a
 * stale missed slot from being sent at start-up.
 */
let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let daemon: Daemon | undefined;

afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  await smtp?.close();
  tmp?.cleanup();
});

const BERLIN_MONDAY = { cron: '0 8 * * 1', timezone: 'Europe/Berlin' };

async function start(clock: FakeClock, report: Record<string, unknown>) {
  const config = seededConfig(tmp.dir, { smtpUrl: smtp.url, report });
  daemon = await startDaemon({
    config,
    clock,
    renderer: stubRenderer(tmp.dir),
    sync: idleSync,
    pollMs: 3_600_000,
  });
  return daemon;
}

async function setup() {
  tmp = tempDir();
  smtp = await startSmtp();
  await seedStore(join(tmp.dir, 'reportd.sqlite'), [fixtureSnapshot({ runId: 4825, run: 'W12 2026' })]);
}

describe('report lifecycle in the daemon', () => {
  it('a paused report never fires, and has no next run', async () => {
    await setup();
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    const { store, scheduler } = await start(clock, { enabled: false, schedule: BERLIN_MONDAY });
    expect(scheduler.nextRuns()['report:weekly']).toBeUndefined();
    await advanceTo(clock, '2026-04-10T00:00:00Z'); // three Mondays
    expect(await enqueued(store)).toEqual([]);
    expect(smtp.messages).toEqual([]);
    expect(await getJobState(store, 'report:weekly')).toBeUndefined();
  });

  it('fires only inside active_from … active_until', async () => {
    await setup();
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    const d = await start(clock, {
      schedule: BERLIN_MONDAY,
      active_from: '2026-03-24',
      active_until: '2026-03-30',
    });
    expect(d.scheduler.nextRuns()['report:weekly']).toBe('2026-03-30T06:00:00.000Z');
    await advanceTo(clock, '2026-04-14T00:00:00Z');
    // 03-23 is before the window, 03-30 inside (its last day counts), 04-06 and 04-13 after.
    expect(await enqueued(d.store)).toEqual([[4825, '2026-03-30T06:00:00.000Z']]);
    await smtp.waitFor(1);
    expect(d.scheduler.nextRuns()['report:weekly']).toBeUndefined();
  });

  it('a missed slot older than max_delay is not sent at start-up: a log line and a history row instead', async () => {
    await setup();
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    let d = await start(clock, { schedule: BERLIN_MONDAY, max_delay: '6h' });
    await d.close();
    // Down over Monday 23 March 08:00 Berlin; back on Tuesday, 24 h late.
    await advanceTo(clock, '2026-03-24T07:00:00Z');
    d = await start(clock, { schedule: BERLIN_MONDAY, max_delay: '6h' });
    await clock.advance(60_000);
    expect(await enqueued(d.store)).toEqual([]);
    const events = await listScheduleEvents(d.store, 10);
    expect(events).toMatchObject([
      {
        job: 'report:weekly',
        kind: 'skipped',
        first_slot_at: Date.parse('2026-03-23T07:00:00Z'),
        at: Date.parse('2026-03-24T07:00:00Z'),
      },
    ]);
    expect(events[0]?.detail).toMatch(/older than max_delay 6h/);
    // The next Monday is sent as usual, and a restart does not skip (or send) the old slot again.
    await d.close();
    d = await start(clock, { schedule: BERLIN_MONDAY, max_delay: '6h' });
    await advanceTo(clock, '2026-03-30T06:00:01Z');
    expect(await enqueued(d.store)).toEqual([[4825, '2026-03-30T06:00:00.000Z']]);
    expect(await listScheduleEvents(d.store, 10)).toHaveLength(1);
    await smtp.waitFor(1);
  });

  it('a missed slot younger than max_delay is still sent once at start-up', async () => {
    await setup();
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    let d = await start(clock, { schedule: BERLIN_MONDAY, max_delay: '6h' });
    await d.close();
    await advanceTo(clock, '2026-03-23T09:00:00Z'); // two hours late
    d = await start(clock, { schedule: BERLIN_MONDAY, max_delay: '6h' });
    await clock.advance(1_000);
    expect(await enqueued(d.store)).toEqual([[4825, '2026-03-23T09:00:00.000Z']]);
    expect(await listScheduleEvents(d.store, 10)).toEqual([]);
    await smtp.waitFor(1);
  });
});
