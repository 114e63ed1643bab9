import { afterEach, describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { listSnapshots } from '../../src/store/snapshots.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

describe('sync under sandbox faults', () => {
  let env: SyncEnv;
  afterEach(() => env.close());

  it('stores every payload of every set when 15% of first attempts fail (502, reset, stall)', async () => {
    env = await startSyncEnv({
      rate: { requests: 100, windowMs: 1000 },
      // A stall outlasts the client's timeout, so that path is exercised too.
      sandbox: { faults: 0.15, faultStallMs: 1500, faultSeed: 7 },
      settings: { query_sets: 'all', backfill_runs: 2 },
    });
    const summary = await env.sync({ client: { backoff: { baseMs: 10, capMs: 100 }, timeoutMs: 700 } });

    expect(env.sandbox.stats.faults).toBeGreaterThan(5);
    expect(summary.errors).toEqual([]);
    // 101, 102 and 201 have runs (two each are due); 103 has none and is fine.
    expect(summary).toMatchObject({ snapshotsDue: 6, snapshotsCompleted: 6, snapshotsIncomplete: 0 });
    for (const setId of [101, 102, 201]) {
      const snapshots = await listSnapshots(env.store, { querySetId: setId });
      expect(snapshots).toHaveLength(2);
      for (const snapshot of snapshots) {
        expect(Object.values(snapshot.payloads).filter((p) => p.error === null)).toHaveLength(
          metricEndpoints.length,
        );
      }
    }
    // Retries happened (the client saw the faults) but none of them was a -145.
    expect(summary.requests).toBeGreaterThan(summary.metricRequests);
    expect(env.rateLimited()).toBe(0);
  });
});
