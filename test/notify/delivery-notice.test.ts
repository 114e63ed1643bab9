import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { listIncidents } from '../../src/notify/incidents.js';
import { listNotices } from '../../src/outbox/notices.js';
import { advanceTo, idleSync, stubRenderer } from '../daemon/helpers.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { fixtureSnapshot } from '../report/fixtures.js';
import { seedStore } from '../report/helpers.js';

/**
 * A delivery refused with SMTP 550 (a permanent failure) sends one failure notice, through a real
 * SMTP server, naming the report and the server's reply; further drains and later failures of the
 * same report send no more; the next delivery that goes out sends one recovery notice.
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

function config(to: string) {
  return configFromObject(
    {
      accounts: [
        {
          name: 'main',
          base_url: 'http://127.0.0.1:1/v2/integration',
          api_key: 'k',
          api_secret: 'notice-secret',
        },
      ],
      store: { path: 'reportd.sqlite' },
      sync: { schedule: '0 0 1 1 *' },
      smtp: { url: smtp.url, from: 'Reports <reports@example.com>' },
      notify_on_failure: { email: ['ops@example.com'] },
      reports: [
        {
          name: 'weekly-executive',
          query_sets: [101],
          schedule: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' },
          email: { to: [to] },
          notify_on_failure: { email: ['owner@example.com'] },
        },
      ],
    },
    tmp.dir,
  );
}

describe('a delivery that failed for good', () => {
  it('sends one notice naming the report and the reply, and one recovery notice', async () => {
    tmp = tempDir();
    smtp = await startSmtp();
    const storePath = join(tmp.dir, 'reportd.sqlite');
    await seedStore(storePath, [fixtureSnapshot({ runId: 4825, run: 'W12 2026' })]);
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    const start = (to: string) =>
      startDaemon({
        config: config(to),
        clock,
        renderer: stubRenderer(tmp.dir),
        sync: idleSync,
        pollMs: 3_600_000,
      });
    daemon = await start('ceo@bounce.test');

    await advanceTo(clock, '2026-03-23T07:00:01Z');
    await smtp.waitFor(1);
    const [notice] = smtp.messages;
    expect(notice!.subject).toBe('[reportd] report weekly-executive could not be delivered');
    expect(notice!.to).toMatchObject({
      value: [{ address: 'ops@example.com' }, { address: 'owner@example.com' }],
    });
    expect(notice!.text).toContain('report weekly-executive to email: could not be delivered:');
    expect(notice!.text).toMatch(/550 No such user ceo@bounce\.test/);
    expect(notice!.attachments).toEqual([]);

    // The worker keeps polling, the next Monday fails again: still the one incident, the one notice.
    await seedStore(storePath, [fixtureSnapshot({ runId: 4826, run: 'W13 2026' })]);
    await advanceTo(clock, '2026-03-30T06:00:01Z');
    const store = daemon.store;
    await expect
      .poll(
        async () =>
          (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE state = 'failed'"))?.n,
        { timeout: 5_000 },
      )
      .toBe(2);
    await clock.advance(10 * 60_000);
    expect(smtp.messages).toHaveLength(1);
    expect(await listIncidents(store, 10)).toHaveLength(1);

    // Fixed (a restart with the right address): the next delivery goes out, and the incident clears.
    await daemon.close();
    daemon = await start('ceo@example.com');
    await seedStore(storePath, [fixtureSnapshot({ runId: 4827, run: 'W14 2026' })]);
    await advanceTo(clock, '2026-04-06T06:00:01Z');
    await smtp.waitFor(3);
    await clock.advance(10 * 60_000);
    const subjects = smtp.messages.map((m) => m.subject);
    expect(subjects.filter((s) => s?.startsWith('[reportd]'))).toEqual([
      '[reportd] report weekly-executive could not be delivered',
      '[reportd] resolved: report weekly-executive could not be delivered',
    ]);
    expect(smtp.messages).toHaveLength(3); // the two notices and the report itself
    const [incident] = await listIncidents(daemon.store, 10);
    expect(incident?.clearedAt).not.toBeNull();
    expect((await listNotices(daemon.store)).map((n) => [n.kind, n.state, n.attempts])).toEqual([
      ['opened', 'sent', 1],
      ['cleared', 'sent', 1],
    ]);
  });
});
