import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { getDelivery } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { chromiumProcessesWith } from '../helpers/chromium-processes.js';
import { setEnv } from '../helpers/env.js';
import { fixtureSnapshot } from '../report/fixtures.js';
import { seedStore } from '../report/helpers.js';
import { eventually, idleSync, seededConfig } from './helpers.js';

/**
 * The daemon's real renderer and real Chromium: the browser is closed after 60 s without a render
 * (on the injected clock), and shutdown does not wait for a render in progress.
 */
// Chromium inherits this process's environment: the marker tells its processes from other tests'.
const MARKER = `reportd-chromium-lifecycle-${randomUUID()}`;
const restoreEnv = setEnv({ REPORTD_TEST_MARKER: MARKER });
const chromium = () => chromiumProcessesWith(MARKER);

let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
const daemons: Daemon[] = [];
const key = { report: 'weekly', querySetId: 101, runId: 4825, account: 'main' };

beforeAll(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  await seedStore(join(tmp.dir, 'reportd.sqlite'), [fixtureSnapshot({ runId: 4825, run: 'W12 2026' })]);
});
afterAll(async () => {
  await Promise.all(daemons.map((d) => d.close()));
  await smtp?.close();
  tmp?.cleanup();
  restoreEnv();
});

async function daemonWithRealRenderer(clock: FakeClock, outputDir: string): Promise<Daemon> {
  const config = seededConfig(tmp.dir, {
    smtpUrl: smtp.url,
    outputDir,
    report: { schedule: { cron: '0 8 1 1 *', timezone: 'UTC' } },
  });
  const daemon = await startDaemon({ config, clock, sync: idleSync, pollMs: 3_600_000 });
  daemons.push(daemon);
  return daemon;
}

describe('Chromium in the daemon', () => {
  it('stays warm between renders and is closed after 60 s idle', async () => {
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    const daemon = await daemonWithRealRenderer(clock, 'reports-idle');
    expect(chromium()).toEqual([]); // launched on the first render, not at start

    await daemon.outbox.enqueue(key);
    daemon.kick();
    await smtp.waitFor(1, 60_000);
    expect(chromium().length).toBeGreaterThan(0);

    await clock.advance(59_000);
    expect(chromium().length).toBeGreaterThan(0);
    await clock.advance(1_000);
    expect(await eventually(() => chromium().length === 0)).toBe(true);
    await daemon.close();
  });

  it('shutdown during a render hands the delivery back at once and leaves no Chromium', async () => {
    const clock = new FakeClock(Date.parse('2026-03-27T00:00:00Z'));
    const daemon = await daemonWithRealRenderer(clock, 'reports-shutdown');
    const sent = smtp.messages.length;
    const { delivery } = await daemon.outbox.enqueue(key, { force: true });
    daemon.kick();
    // Claimed and rendering (Chromium is still starting: that takes far longer than this poll).
    expect(
      await eventually(async () => (await getDelivery(daemon.store, delivery.id))?.state === 'rendering'),
    ).toBe(true);

    const started = Date.now();
    await daemon.close();
    const stopMs = Date.now() - started;
    const store = await openStore(join(tmp.dir, 'reportd.sqlite'));
    const row = await getDelivery(store, delivery.id);
    await store.close();
    expect(row).toMatchObject({ state: 'pending', attempts: 1, lastError: 'interrupted by shutdown' });
    // The render was cut, not awaited: it never wrote its PDF.
    const dir = join(tmp.dir, 'reports-shutdown', 'weekly');
    const written = existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }) : [];
    expect(written.filter((f) => f.endsWith('.pdf'))).toEqual([]);
    expect(await eventually(() => chromium().length === 0)).toBe(true);
    expect(smtp.messages).toHaveLength(sent);
    expect(stopMs).toBeLessThan(5_000);
  });
});

describe('daemon start-up and the browser', () => {
  it('refuses to start, in one line naming the path, when the configured Chromium is not there', async () => {
    const config = seededConfig(tmp.dir, {
      smtpUrl: smtp.url,
      report: { trigger: 'new_run' },
    });
    const missing = join(tmp.dir, 'no-such-chromium');
    const broken = { ...config, chromium: { ...config.chromium, path: missing } };
    const saved = process.env.REPORTD_CHROMIUM;
    delete process.env.REPORTD_CHROMIUM;
    try {
      await expect(startDaemon({ config: broken, sync: idleSync })).rejects.toThrow(
        `chromium.path ${missing} is not an executable file`,
      );
    } finally {
      if (saved !== undefined) process.env.REPORTD_CHROMIUM = saved;
    }
  });
});
