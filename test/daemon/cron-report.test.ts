import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { fixtureSnapshot } from '../report/fixtures.js';
import { seedStore } from '../report/helpers.js';
import { advanceTo, enqueued, idleSync, seededConfig, stubRenderer } from './helpers.js';

/**
 * The whole daemon (scheduler, outbox worker, real SMTP) on a fake clock: a report on
 * `0 8 * * 1` in Europe/Berlin is due at 07:00 UTC before the spring change and 06:00 UTC after it,
 * and not a second earlier.
 */
let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let daemon: Daemon | undefined;

afterEach(async () => {
  await daemon?.close();
  await smtp?.close();
  tmp?.cleanup();
});

describe('a cron report in the daemon', () => {
  it('fires at 08:00 Berlin on the Mondays either side of the DST change, once per slot', async () => {
    tmp = tempDir();
    smtp = await startSmtp();
    const storePath = join(tmp.dir, 'reportd.sqlite');
    await seedStore(storePath, [fixtureSnapshot({ runId: 4825, run: 'W12 2026' })]);
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    const config = seededConfig(tmp.dir, {
      smtpUrl: smtp.url,
      report: { schedule: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' } },
    });
    daemon = await startDaemon({
      config,
      clock,
      renderer: stubRenderer(tmp.dir),
      sync: idleSync,
      pollMs: 3_600_000,
    });
    const { store } = daemon;

    // CET (+1): Monday 23 March, 08:00 Berlin is 07:00 UTC.
    await advanceTo(clock, '2026-03-23T06:59:59Z');
    expect(await enqueued(store)).toEqual([]);
    await clock.advance(1_000);
    expect(await enqueued(store)).toEqual([[4825, '2026-03-23T07:00:00.000Z']]);
    await smtp.waitFor(1);

    // A new run lands during the week; CEST (+2) from Sunday 29 March: 08:00 Berlin is 06:00 UTC.
    await seedStore(storePath, [fixtureSnapshot({ runId: 4826, run: 'W13 2026' })]);
    await advanceTo(clock, '2026-03-30T05:59:59Z');
    expect(await enqueued(store)).toHaveLength(1);
    await clock.advance(1_000);
    expect(await enqueued(store)).toEqual([
      [4825, '2026-03-23T07:00:00.000Z'],
      [4826, '2026-03-30T06:00:00.000Z'],
    ]);
    await smtp.waitFor(2);

    // The next Monday with no new run: the slot fires but the run was already delivered.
    await advanceTo(clock, '2026-04-06T06:00:01Z');
    expect(await enqueued(store)).toHaveLength(2);
    expect(daemon.scheduler.nextRuns()['report:weekly']).toBe('2026-04-13T06:00:00.000Z');
    expect(smtp.messages.map((m) => m.subject)).toEqual([
      'AI visibility — Northwind Coffee — Run 4825',
      'AI visibility — Northwind Coffee — Run 4826',
    ]);
  });
});
