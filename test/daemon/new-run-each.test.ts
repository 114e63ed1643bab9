import { afterEach, describe, expect, it } from 'vitest';
import { enqueueNewRuns } from '../../src/daemon/new-runs.js';
import { Outbox } from '../../src/delivery/outbox.js';
import { listDeliveries } from '../../src/store/deliveries.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';

/**
 * `trigger: new_run` when several runs are published between two syncs (the sandbox over HTTP, a
 * real store and outbox): each is enqueued once, oldest first, not only the newest.
 */
describe('trigger: new_run with several runs published between two syncs', () => {
  let env: SyncEnv;
  afterEach(async () => {
    await env.close();
  });

  it('enqueues each new run once, oldest first', async () => {
    env = await startSyncEnv({ rate: { requests: 300, windowMs: 1000 }, settings: { backfill_runs: 4 } });
    const outbox = new Outbox({
      store: env.store,
      // Only enqueue is exercised here; the daemon tests render and send.
      renderer: { render: () => Promise.reject(new Error('not rendering in this test')) },
      mailer: { send: () => Promise.reject(new Error('not sending in this test')) } as never,
      from: 'reports@example.com',
      reports: [],
    });
    const report = { name: 'on-publish', query_sets: [101] as const };
    await env.sync();
    // The first evaluation records what exists and sends nothing.
    expect(await enqueueNewRuns(outbox, env.store, report, [env.account])).toEqual([]);

    const first = env.sandbox.publishRun(101);
    const second = env.sandbox.publishRun(101);
    const summary = await env.sync();
    expect(summary.errors).toEqual([]);
    const results = await enqueueNewRuns(outbox, env.store, report, [env.account]);
    expect(results.filter((r) => r.created)).toHaveLength(2);
    // Enqueued in publication order (delivery ids grow with each enqueue).
    const enqueued = [...(await listDeliveries(env.store))].sort((a, b) => a.id - b.id);
    expect(enqueued.map((d) => d.run_id)).toEqual([first.id, second.id]);

    // The next evaluation with nothing new enqueues nothing more.
    await env.sync();
    expect(await enqueueNewRuns(outbox, env.store, report, [env.account])).toEqual([]);
    expect(await listDeliveries(env.store)).toHaveLength(2);
  });
});
