import { describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/api/budget.js';
import { FakeClock } from '../../src/clock.js';
import type { PlannedSnapshot } from '../../src/sync/plan.js';
import { ProgressTracker } from '../../src/sync/progress.js';
import type { SyncProgress } from '../../src/sync/types.js';

const snapshot = (runId: number, endpoints: number): PlannedSnapshot => ({
  querySetId: 101,
  run: { id: runId, display_name: `Run ${runId}`, created_at: '2026-01-01T00:00:00Z' },
  endpoints: Array.from({ length: endpoints }, (_, i) => `endpoint-${i}`),
});

describe('sync progress ETA', () => {
  // The demo's shape: a window far smaller than the backfill, so the ETA spans several windows.
  it('counts down as requests are made and time passes, reaching 0 at the end', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ key: 'k', requests: 10, windowMs: 1_000, concurrency: 2, clock });
    const events: SyncProgress[] = [];
    const tracker = new ProgressTracker((p) => events.push(p));
    const plan = [snapshot(3, 10), snapshot(2, 10), snapshot(1, 10)];
    tracker.addAccount('acme', budget);
    tracker.addPlan('acme', plan);
    // 30 payloads from an empty window: 10 now, 10 after one window, 10 after two.
    expect(events.at(-1)!.etaMs).toBe(2_000);

    // What fetch-snapshot does: acquire, request (100 ms), release, record the payload.
    const fetchAll = (async () => {
      for (const planned of plan) {
        for (let i = 0; i < planned.endpoints.length; i++) {
          const release = await budget.acquire();
          tracker.request();
          await clock.sleep(100);
          release();
          tracker.payload('acme', planned, i === planned.endpoints.length - 1 ? 'complete' : 'pending');
        }
      }
    })();
    await clock.runUntilIdle();
    await fetchAll;

    // The ETA a plain-text progress line shows: one per completed snapshot.
    const perSnapshot = [1, 2, 3].map(
      (done) => events.find((e) => e.snapshotsDone === done && e.payloadsDone === done * 10)!.etaMs!,
    );
    expect(perSnapshot[0]).toBeGreaterThan(perSnapshot[1]!);
    expect(perSnapshot[1]).toBeGreaterThan(perSnapshot[2]!);
    expect(perSnapshot[2]).toBe(0);
    // Never goes up while the pass advances, and moves at nearly every step, not once per window.
    const etas = events.slice(events.findIndex((e) => e.requests > 0)).map((e) => e.etaMs!);
    for (let i = 1; i < etas.length; i++) expect(etas[i]).toBeLessThanOrEqual(etas[i - 1]!);
    expect(new Set(etas).size).toBeGreaterThan(10);
  });

  it('is null before anything is planned', () => {
    const events: SyncProgress[] = [];
    const tracker = new ProgressTracker((p) => events.push(p));
    tracker.addAccount('acme', new RateBudget({ key: 'k', requests: 10, windowMs: 1_000 }));
    expect(events.at(-1)!.etaMs).toBeNull();
  });
});
