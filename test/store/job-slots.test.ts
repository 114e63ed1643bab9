import { afterEach, describe, expect, it } from 'vitest';
import type { JobContext } from '../../src/daemon/job-runs.js';
import { Scheduler } from '../../src/daemon/scheduler.js';
import { claimJobSlot, finishJobSlot, renewJobSlot } from '../../src/daemon/slot-lease.js';
import { nextSlot } from '../../src/schedule/lifecycle.js';
import { openStore } from '../../src/store/db.js';
import { getJobSlot, jobSlotsOf } from '../../src/store/job-slots.js';
import { initJobSlot } from '../../src/store/job-state.js';
import { listScheduleEvents } from '../../src/store/schedule-events.js';
import type { Store } from '../../src/store/sql.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * Cron slots claimed once across daemons, on the engine under test: the claim itself between two
 * connections, lease expiry and takeover, and two schedulers (each with its own connection, as two
 * daemons would have) deciding a start-up catch-up and each slot once.
 */
let temp: TempStore;
let extra: Store[] = [];
afterEach(async () => {
  await Promise.all(extra.map((s) => s.close()));
  extra = [];
  await temp?.cleanup();
});

async function secondConnection(): Promise<Store> {
  const store = await openStore(temp.target);
  extra.push(store);
  return store;
}

const slot = Date.parse('2026-05-04T08:00:00Z');
const claim = (instance: string, now: number, leaseMs = 60_000) => ({
  job: 'report:weekly',
  slotAt: slot,
  reason: 'schedule' as const,
  instance,
  now,
  leaseMs,
});

describe('job_slots claims', () => {
  it('two connections claiming one slot at once: exactly one wins, the other is told who has it', async () => {
    temp = await tempStore();
    const other = await secondConnection();
    const results = await Promise.all([
      claimJobSlot(temp.store, claim('host-a:1:aa', slot)),
      claimJobSlot(other, claim('host-b:2:bb', slot)),
    ]);
    const won = results.filter((r) => r.won);
    expect(won).toHaveLength(1);
    const row = await getJobSlot(temp.store, 'report:weekly', slot);
    const lost = results.find((r) => !r.won);
    expect(lost && !lost.won && lost.held.instance).toBe(row!.instance);
    expect(await jobSlotsOf(temp.store, 'report:weekly')).toHaveLength(1);
  });

  it('an unfinished claim whose lease lapsed is taken over; its old holder can neither renew nor finish it', async () => {
    temp = await tempStore();
    expect((await claimJobSlot(temp.store, claim('host-a:1:aa', slot, 1_000))).won).toBe(true);
    const early = await claimJobSlot(temp.store, claim('host-b:2:bb', slot + 500));
    expect(early.won).toBe(false);
    const late = await claimJobSlot(temp.store, {
      ...claim('host-b:2:bb', slot + 1_500),
      reason: 'takeover',
    });
    expect(late).toEqual({ won: true, takeover: true });
    const a = { job: 'report:weekly', slotAt: slot, instance: 'host-a:1:aa' };
    expect(await renewJobSlot(temp.store, a, slot + 90_000)).toBe(false);
    await finishJobSlot(temp.store, a, { at: slot + 2_000, outcome: 'ok' });
    const row = await getJobSlot(temp.store, 'report:weekly', slot);
    expect(row).toMatchObject({
      instance: 'host-b:2:bb',
      reason: 'takeover',
      takeovers: 1,
      finished_at: null,
    });
  });

  it('a finished slot is never claimed again, however old its lease', async () => {
    temp = await tempStore();
    await claimJobSlot(temp.store, claim('host-a:1:aa', slot, 1_000));
    await finishJobSlot(
      temp.store,
      { job: 'report:weekly', slotAt: slot, instance: 'host-a:1:aa' },
      { at: slot + 100, outcome: 'ok' },
    );
    const again = await claimJobSlot(temp.store, claim('host-b:2:bb', slot + 86_400_000));
    expect(again.won).toBe(false);
    expect(!again.won && again.held).toMatchObject({ instance: 'host-a:1:aa', outcome: 'ok' });
  });

  it('a shutdown ends the lease at once, so the next claim of that slot (a catch-up) takes it', async () => {
    temp = await tempStore();
    await claimJobSlot(temp.store, claim('host-a:1:aa', slot));
    await finishJobSlot(
      temp.store,
      { job: 'report:weekly', slotAt: slot, instance: 'host-a:1:aa' },
      { at: slot + 100, outcome: 'interrupted' },
    );
    const next = await claimJobSlot(temp.store, { ...claim('host-b:2:bb', slot + 200), reason: 'catch-up' });
    expect(next.won).toBe(true);
  });

  it("no overlap across daemons: a job's next slot is not claimed while another instance still runs the last", async () => {
    temp = await tempStore();
    await claimJobSlot(temp.store, claim('host-a:1:aa', slot));
    const next = await claimJobSlot(temp.store, {
      ...claim('host-b:2:bb', slot + 60_000),
      slotAt: slot + 60_000,
    });
    expect(next.won).toBe(false);
    expect(!next.won && next.busy).toBe(true);
    expect(!next.won && next.held.instance).toBe('host-a:1:aa');
  });
});

describe('two schedulers on one store (two connections)', () => {
  const schedulers: Scheduler[] = [];
  afterEach(async () => {
    await Promise.all(schedulers.splice(0).map((s) => s.close()));
  });

  function scheduler(store: Store, fired: JobContext[], def: { cron: string; max_delay?: string }) {
    const s = new Scheduler({ store, slotLeaseMs: 2_000 });
    s.add({
      name: 'report:r',
      cron: def.cron,
      lifecycle: { enabled: true, max_delay: def.max_delay },
      async run(ctx) {
        fired.push(ctx);
        await new Promise((resolve) => setTimeout(resolve, 50));
      },
    });
    schedulers.push(s);
    return s;
  }

  const until = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it('decide the start-up catch-up once: one run, claimed under the newest missed slot', async () => {
    temp = await tempStore();
    const other = await secondConnection();
    // A yearly slot, last fired three years ago: missed, and no regular slot can fire during the test.
    const cron = '0 0 1 1 *';
    await initJobSlot(temp.store, 'report:r', Date.parse('2023-06-01T00:00:00Z'));
    const fired: JobContext[] = [];
    const a = scheduler(temp.store, fired, { cron });
    const b = scheduler(other, fired, { cron });
    a.start();
    b.start();
    await until(async () => (await jobSlotsOf(temp.store, 'report:r'))[0]?.finished_at != null);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second run gets every chance
    expect(fired.map((f) => f.reason)).toEqual(['catch-up']);
    const newest = Date.UTC(new Date().getUTCFullYear(), 0, 1);
    const rows = await jobSlotsOf(temp.store, 'report:r');
    expect(rows.map((r) => [r.slot_at, r.reason, r.outcome])).toEqual([[newest, 'catch-up', 'ok']]);
  });

  it('decide a stale catch-up (older than max_delay) once: one skip recorded', async () => {
    temp = await tempStore();
    const other = await secondConnection();
    await initJobSlot(temp.store, 'report:r', Date.parse('2023-06-01T00:00:00Z'));
    const fired: JobContext[] = [];
    scheduler(temp.store, fired, { cron: '0 0 1 1 *', max_delay: '1h' }).start();
    scheduler(other, fired, { cron: '0 0 1 1 *', max_delay: '1h' }).start();
    await until(async () => (await jobSlotsOf(temp.store, 'report:r'))[0]?.outcome === 'skipped');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fired).toEqual([]);
    expect(await listScheduleEvents(temp.store, 10)).toHaveLength(1);
  });

  it('run each every-second slot once between them', async () => {
    temp = await tempStore();
    const other = await secondConnection();
    const fired: JobContext[] = [];
    scheduler(temp.store, fired, { cron: '* * * * * *' }).start();
    scheduler(other, fired, { cron: '* * * * * *' }).start();
    await until(() => fired.length >= 4);
    await Promise.all(schedulers.splice(0).map((s) => s.close()));
    const slots = fired.map((f) => f.slot);
    expect(new Set(slots).size).toBe(slots.length);
    const rows = await jobSlotsOf(temp.store, 'report:r');
    expect(rows.map((r) => r.slot_at)).toEqual([...slots].sort((x, y) => x - y));
  });

  it("a live peer takes over a slot whose claimer stopped renewing (a kill -9'd daemon on another host)", async () => {
    temp = await tempStore();
    const cron = '*/5 * * * * *';
    const target = nextSlot(cron, 'UTC', { enabled: true }, Date.now() + 1_000)!;
    // The dead daemon's claim: made at the slot, never renewed, its lease ends 1 s later.
    await temp.store.run(
      `INSERT INTO job_slots (job, slot_at, reason, instance, claimed_at, lease_until)
       VALUES ('report:r', ?, 'schedule', 'elsewhere:4242:dead', ?, ?)`,
      [target, target, target + 1_000],
    );
    const fired: JobContext[] = [];
    scheduler(temp.store, fired, { cron }).start();
    await until(() => fired.some((f) => f.reason === 'takeover'), 15_000);
    expect(fired.find((f) => f.reason === 'takeover')?.slot).toBe(target);
    expect(await getJobSlot(temp.store, 'report:r', target)).toMatchObject({
      reason: 'takeover',
      takeovers: 1,
    });
    expect((await getJobSlot(temp.store, 'report:r', target))?.instance).not.toBe('elsewhere:4242:dead');
  });
});
