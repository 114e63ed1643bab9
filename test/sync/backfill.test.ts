import { afterEach, describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { openStore } from '../../src/store/db.js';
import { findSnapshot, listSnapshots } from '../../src/store/snapshots.js';
import { listSyncRuns } from '../../src/store/sync-runs.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

describe('backfill against the sandbox', () => {
  let env: SyncEnv;
  afterEach(() => env.close());

  it('stores 4 complete snapshots with exactly 4 × 34 metric requests, then makes none on the next pass', async () => {
    env = await startSyncEnv();
    const progress: number[] = [];
    const events: string[] = [];
    const first = await env.sync({
      onProgress: (p) => progress.push(p.snapshotsDone),
      onRequest: (e) => events.push(`${e.account} ${e.outcome}`),
    });

    expect(env.metricRequests()).toBe(4 * metricEndpoints.length);
    expect(env.rateLimited()).toBe(0);
    expect(first).toMatchObject({
      snapshotsDue: 4,
      snapshotsCompleted: 4,
      snapshotsIncomplete: 0,
      errors: [],
    });
    expect(first.metricRequests).toBe(136);
    expect(progress.at(-1)).toBe(4);
    expect(events).toHaveLength(first.requests);
    expect(new Set(events)).toEqual(new Set(['acme ok']));

    const snapshots = await listSnapshots(env.store, { querySetId: 101 });
    expect(snapshots.map((s) => s.state)).toEqual(['complete', 'complete', 'complete', 'complete']);
    // The newest four runs, newest first, each with every metric payload.
    const runIds = snapshots.map((s) => s.run.id);
    expect(runIds).toEqual([...runIds].sort((a, b) => b - a));
    for (const snapshot of snapshots) {
      expect(Object.keys(snapshot.payloads).sort()).toEqual(metricEndpoints.map((e) => e.key).sort());
    }
    // source-landscape was asked for every source, not the server's default 10.
    const landscape = snapshots[0]!.payloads['scout.source-landscape']!.data as {
      sourcesDetail: unknown[];
      totalCount: number;
    };
    expect(landscape.totalCount).toBeGreaterThan(10);
    expect(landscape.sourcesDetail).toHaveLength(landscape.totalCount);

    env.sandbox.resetStats();
    const second = await env.sync();
    expect(env.metricRequests()).toBe(0);
    expect(second).toMatchObject({ snapshotsDue: 0, metricRequests: 0, errors: [] });
    // Only /runs is polled; the catalog is fresh.
    expect(env.sandbox.stats.byEndpoint).toEqual({ 'catalog.runs': 1 });
    expect((await listSyncRuns(env.store)).map((r) => r.outcome)).toEqual(['ok', 'ok']);
  });

  it('fetches a newly published run on the next pass, and only that one', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 2 } });
    await env.sync();
    const published = env.sandbox.publishRun(101);
    env.sandbox.resetStats();
    const summary = await env.sync();
    expect(env.metricRequests()).toBe(34);
    expect(summary.snapshotsCompleted).toBe(1);
    const newest = await findSnapshot(env.store, { querySetId: 101 });
    expect(newest?.run.id).toBe(published.id);
    expect(newest?.state).toBe('complete');
  });

  it('keeps syncing when the process reopens its store between passes (the budget outlives the store)', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 1 } });
    const other = await openStore(env.storePath);
    try {
      await env.sync({ store: other });
    } finally {
      await other.close();
    }
    env.sandbox.publishRun(101);
    // Same process, same API key: the shared budget now records into the store of this pass.
    const summary = await env.sync();
    expect(summary).toMatchObject({ errors: [], snapshotsCompleted: 1 });
    const logged = await env.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM request_log');
    expect(logged?.n).toBeGreaterThan(34);
  });
});
