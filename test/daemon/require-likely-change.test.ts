import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { listScheduleEvents } from '../../src/store/schedule-events.js';
import { startSmtp, type TestSmtp } from '../delivery/smtp-helpers.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';
import { advanceTo, enqueued, idleSync, stubRenderer } from './helpers.js';

/**
 * `require_likely_change: true` on the daemon's scheduled path (the scheduler's cron slot, the
 * outbox worker, real SMTP, runs synced from the sandbox over HTTP, a fake clock): a slot that finds
 * a quiet run sends nothing and records the skip in `history` once, for a per-set report and for a
 * digest; the slot after a run with a likely change sends it, once.
 */
let env: SyncEnv | undefined;
let smtp: TestSmtp | undefined;
let daemon: Daemon | undefined;

afterEach(async () => {
  await daemon?.close();
  await smtp?.close();
  await env?.close();
  daemon = smtp = env = undefined;
});

const skipsOf = async (store: Daemon['store'], job: string) =>
  (await listScheduleEvents(store, 100)).filter((event) => event.job === job);

describe('require_likely_change in the daemon', () => {
  it('a scheduled slot skips a quiet run (history says why, once) and sends a run with a likely change once', async () => {
    env = await startSyncEnv({ rate: { requests: 600, windowMs: 1000 }, settings: { backfill_runs: 1 } });
    smtp = await startSmtp();
    expect((await env.sync()).errors).toEqual([]);
    // Set 101's next run is like the last: no likely change among its report's changes.
    env.sandbox.publishRun(101);
    expect((await env.sync()).errors).toEqual([]);

    const report = {
      query_sets: [101],
      formats: ['xlsx'],
      require_likely_change: true,
      schedule: { cron: '0 8 * * 1', timezone: 'UTC' },
    };
    const config = configFromObject(
      {
        accounts: [
          { name: 'acme', base_url: env.account.base_url, api_key: env.account.api_key, api_secret: 'x' },
        ],
        store: { path: env.storePath },
        sync: { query_sets: [101], schedule: '0 0 1 1 *' },
        output: { dir: 'reports' },
        smtp: { url: smtp.url, from: 'Reports <reports@example.com>' },
        reports: [
          { name: 'per-set', mode: 'per_set', email: { to: ['cmo@example.com'] }, ...report },
          { name: 'digest', email: { to: ['ceo@example.com'] }, ...report },
        ],
      },
      env.dir,
    );
    const clock = new FakeClock(Date.parse('2026-03-20T00:00:00Z'));
    daemon = await startDaemon({
      config,
      clock,
      renderer: stubRenderer(env.dir),
      sync: idleSync,
      pollMs: 3_600_000,
    });
    const { store } = daemon;

    // Monday 08:00: both reports' slots fire on the quiet run. Nothing is queued or sent; each
    // report's skip is in history with its reason.
    await advanceTo(clock, '2026-03-23T08:00:01Z');
    expect(await enqueued(store)).toEqual([]);
    const quiet =
      /^run .+ of query set 101 \(acme\): no likely change among the \d+ changes its report judged \(require_likely_change\)$/;
    for (const job of ['report:per-set', 'report:digest']) {
      const skips = await skipsOf(store, job);
      expect(skips).toHaveLength(1);
      expect(skips[0]!.detail).toMatch(quiet);
      // Recorded at the slot, on the daemon's clock.
      expect(skips[0]!.at).toBeGreaterThanOrEqual(Date.parse('2026-03-23T08:00:00Z'));
      expect(skips[0]!.at).toBeLessThanOrEqual(Date.parse('2026-03-23T08:00:01Z'));
    }
    // The next Monday finds the same quiet run: still nothing sent, and history holds it once.
    await advanceTo(clock, '2026-03-30T08:00:01Z');
    expect(await enqueued(store)).toEqual([]);
    expect(await skipsOf(store, 'report:per-set')).toHaveLength(1);
    expect(await skipsOf(store, 'report:digest')).toHaveLength(1);
    expect(smtp.messages).toHaveLength(0);

    // A run where gross presence falls 12 points on 600 answers: the next slot sends it, once each.
    const moved = env.sandbox.publishRun(101, { grossChange: -12, answers: 600 });
    expect((await env.sync()).errors).toEqual([]);
    await advanceTo(clock, '2026-04-06T08:00:01Z');
    expect((await enqueued(store)).map(([run]) => run)).toEqual([moved.id, moved.id]);
    await smtp.waitFor(2);
    expect(smtp.envelopes.flat().sort()).toEqual(['ceo@example.com', 'cmo@example.com']);

    // Another Monday with the same run: the slots fire, but it was already delivered.
    await advanceTo(clock, '2026-04-13T08:00:01Z');
    expect(await enqueued(store)).toHaveLength(2);
    expect(await skipsOf(store, 'report:per-set')).toHaveLength(1);
    expect(await skipsOf(store, 'report:digest')).toHaveLength(1);
    expect(smtp.messages).toHaveLength(2);
  });
});
