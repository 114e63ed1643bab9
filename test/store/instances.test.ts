import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startInstance } from '../../src/daemon/instance.js';
import { claimJobSlot, finishJobSlot } from '../../src/daemon/slot-lease.js';
import { clusterLines, collectCluster } from '../../src/status/cluster.js';
import { listInstances } from '../../src/store/instances.js';
import { acquireAccountLease } from '../../src/sync/account-lease-rows.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * The instances table and what status, history and /readyz?verbose read from it: which daemons
 * share the store, whether each is alive, the slots it ran and the leases it holds.
 */
let temp: TempStore;
afterEach(async () => {
  await temp?.cleanup();
});

async function until(check: () => Promise<boolean>, ms = 5_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('instances', () => {
  it('registers, heartbeats on its timer, and is marked stopped by a clean close (twice is fine)', async () => {
    temp = await tempStore();
    const instance = await startInstance({
      store: temp.store,
      roles: ['scheduler', 'worker'],
      heartbeatMs: 50,
    });
    expect(instance.id).toMatch(new RegExp(`^${hostname()}(#\\d+)?:${process.pid}:[0-9a-f]+(@\\d+)?$`));
    const [row] = await listInstances(temp.store, 0);
    expect(row).toMatchObject({
      id: instance.id,
      pid: process.pid,
      roles: 'scheduler,worker',
      stopped_at: null,
    });
    await until(async () => (await listInstances(temp.store, 0))[0]!.heartbeat_at > row!.heartbeat_at);
    await Promise.all([instance.close(), instance.close()]);
    expect((await listInstances(temp.store, 0))[0]!.stopped_at).not.toBeNull();
  });

  it('status shows each instance live, gone or stopped, the slots it ran and the leases it holds', async () => {
    temp = await tempStore();
    const now = Date.now();
    const live = await startInstance({ store: temp.store, roles: ['scheduler'] });
    const stopped = await startInstance({ store: temp.store, roles: ['worker'] });
    await stopped.close();
    // A daemon that died without a word: its heartbeat is ten minutes old.
    await temp.store.run(
      `INSERT INTO instances (id, host, pid, version, roles, started_at, heartbeat_at)
       VALUES ('far-host:77:dead', 'far-host', 77, '0.9.0', 'scheduler', ?, ?)`,
      [now - 3_600_000, now - 600_000],
    );
    const slot = Date.parse('2026-05-04T08:00:00Z');
    await claimJobSlot(temp.store, {
      job: 'report:weekly',
      slotAt: slot,
      reason: 'schedule',
      instance: live.id,
      now,
      leaseMs: 60_000,
    });
    await finishJobSlot(
      temp.store,
      { job: 'report:weekly', slotAt: slot, instance: live.id },
      { at: now, outcome: 'ok' },
    );
    // This process syncs account acme (a lease holder is per pass, matched by host and pid) …
    await acquireAccountLease(
      temp.store,
      'acme',
      { id: 'pass-1', host: hostname(), pid: process.pid },
      now,
      30_000,
    );
    // … and a `reportd sync` elsewhere holds beta: no instance of its own.
    await acquireAccountLease(temp.store, 'beta', { id: 'pass-2', host: 'laptop', pid: 999 }, now, 30_000);

    const view = await collectCluster(temp.store, now);
    const byId = new Map(view.instances.map((i) => [i.id, i]));
    expect(byId.get(live.id)).toMatchObject({
      state: 'live',
      slots: [{ job: 'report:weekly', slot: '2026-05-04T08:00:00.000Z', reason: 'schedule', outcome: 'ok' }],
      holds: { accounts: ['acme'], deliveries: [], notices: [] },
    });
    expect(byId.get(stopped.id)?.state).toBe('stopped');
    expect(byId.get('far-host:77:dead')?.state).toBe('gone');
    expect(view.others).toEqual([{ kind: 'account', what: 'beta', holder: 'pid 999 on laptop' }]);

    const text = clusterLines(view, live.id).join('\n');
    expect(text).toMatch(/^Instances \(1 live of 3 heard from in the last day\)/);
    expect(text).toContain(`live    ${live.id} (this one)`);
    expect(text).toMatch(/gone {4}far-host:77:dead .* heartbeat 10m ago/);
    expect(text).toContain('slots: report:weekly 2026-05-04T08:00:00.000Z ok');
    expect(text).toContain('holds: accounts acme');
    expect(text).toContain('not an instance: pid 999 on laptop holds account beta');
    await live.close();
  });
});
