import { afterEach, describe, expect, it } from 'vitest';
import { enqueueNewRuns } from '../../src/daemon/new-runs.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { listDeliveries } from '../../src/outbox/reads.js';
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
    const report = { name: 'on-publish', query_sets: [101], mode: 'per_set' as const };
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
    expect(enqueued.map((d) => d.runId)).toEqual([first.id, second.id]);

    // The next evaluation with nothing new enqueues nothing more.
    await env.sync();
    expect(await enqueueNewRuns(outbox, env.store, report, [env.account])).toEqual([]);
    expect(await listDeliveries(env.store)).toHaveLength(2);
  });

  it('a digest report enqueues one message per pass, however many runs the pass stored', async () => {
    env = await startSyncEnv({
      rate: { requests: 300, windowMs: 1000 },
      settings: { query_sets: [101, 102], backfill_runs: 4 },
    });
    const outbox = new Outbox({
      store: env.store,
      renderer: { render: () => Promise.reject(new Error('not rendering in this test')) },
      mailer: { send: () => Promise.reject(new Error('not sending in this test')) } as never,
      from: 'reports@example.com',
      reports: [],
    });
    const report = { name: 'portfolio', query_sets: [101, 102], mode: 'digest' as const };
    await env.sync();
    expect(await enqueueNewRuns(outbox, env.store, report, [env.account])).toEqual([]);

    env.sandbox.publishRun(101);
    const newest101 = env.sandbox.publishRun(101);
    const newest102 = env.sandbox.publishRun(102);
    expect((await env.sync()).errors).toEqual([]);
    const results = await enqueueNewRuns(outbox, env.store, report, [env.account]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(JSON.parse(results[0]!.delivery.covers!)).toEqual([
      ['acme', 101, newest101.id],
      ['acme', 102, newest102.id],
    ]);

    await env.sync();
    expect(await enqueueNewRuns(outbox, env.store, report, [env.account])).toEqual([]);
    // One set moves on: the next digest covers both sets again, the other one unchanged.
    const later = env.sandbox.publishRun(102);
    await env.sync();
    const next = await enqueueNewRuns(outbox, env.store, report, [env.account]);
    expect(next.filter((r) => r.created)).toHaveLength(1);
    expect(JSON.parse(next[0]!.delivery.covers!)).toEqual([
      ['acme', 101, newest101.id],
      ['acme', 102, later.id],
    ]);
    expect(await listDeliveries(env.store)).toHaveLength(2);
  });
});
